"""Stored SPARQL queries on the seed graph: golden answers, backend equivalence, injection, headers, errors.

The seed graph (``kg build`` of seeds/, no inputs) is built ONCE for this module, with ``--store`` so the
embedded on-disk store exists too, and served by a real ``oxigraph serve`` process for the endpoint backend.
Four backends answer every stored query: Oxigraph in memory (default), rdflib (``--engine rdflib``), the
on-disk store (``--store DIR``) and a SPARQL 1.1 Protocol endpoint (``--endpoint URL``).

Golden answers: tests/golden/queries/NAME.csv is the byte-exact output of ``kg query NAME -f csv`` on the
seed graph. Regenerate them after an intended change with ``pytest tests/test_queries.py --regen-golden``
and review the diff; the hand checks below then re-check the regenerated files against the seed records.

Checked by hand (see the ``test_hand_*`` tests): works, years, venues, funding, coauthors, cocited,
institution-collaboration, internal-citations, self-citations and most-cited/references row counts. Each
expectation was written by reading the Crossref JSON of seeds/*.txt (``message.DOI``, ``title``,
``issued.date-parts``, ``container-title``, ``author[*].given/family/ORCID/affiliation``, ``funder[*]``,
``reference[*].key/DOI/unstructured``) and is spelled out literally here, not computed from kg's output;
``test_hand_expectations_match_the_seed_json`` re-reads the JSON so the literals cannot drift from it.

Bugs found are tests marked ``xfail(strict=True, reason="BUG: ...")``: they state the right behaviour.
"""

from __future__ import annotations

import csv
import http.server
import io
import itertools
import json
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph
import pytest
from click.testing import CliRunner, Result
from conftest import ROOT, SEEDS

from kg.cli import main
from kg.query.stored import PARAM_TYPES, bound_text, stored_queries

GOLDEN = ROOT / "tests" / "golden" / "queries"
QUERIES = ROOT / "queries"
NAMES = sorted(p.stem for p in QUERIES.glob("*.rq"))
BACKENDS = ["memory", "rdflib", "store", "endpoint"]
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


# ---------------------------------------------------------------- fixtures and helpers


def _oxigraph_cli() -> str:
    """The ``oxigraph`` server CLI of the venv running the tests (else the one on PATH)."""
    beside = Path(sys.executable).parent / "oxigraph"
    found = str(beside) if beside.exists() else shutil.which("oxigraph")
    if not found:
        pytest.fail("the oxigraph CLI is not installed (pip install oxigraph)")
    return found


def _free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now (oxigraph serve cannot bind port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Seed:
    """The seed workspace: KG_HOME, its graph.nq and the on-disk store, and a way to run ``kg`` on them."""

    home: Path
    graph: Path
    store: Path
    runner: CliRunner

    def run(self, *args: str) -> Result:
        """``kg ARGS`` in process, with this workspace; no check."""
        return self.runner.invoke(main, list(args), env={"KG_HOME": str(self.home)}, prog_name="kg")

    def __call__(self, *args: str) -> Result:
        """``kg ARGS``; never a traceback, never an escaped exception."""
        r = self.run(*args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (
            f"kg {' '.join(args)} raised {type(r.exception).__name__}: {r.exception}\n{r.output}")
        assert "Traceback" not in r.stdout and "Traceback" not in r.stderr, r.output
        return r

    def ok(self, *args: str) -> str:
        """``kg ARGS`` that must succeed silently on stderr; its stdout."""
        r = self(*args)
        assert r.exit_code == 0, f"kg {' '.join(args)} exited {r.exit_code}: {r.stderr}"
        assert r.stderr == "", r.stderr
        return r.stdout


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Seed:
    """``kg build -q --store DIR`` run once in the project root (seeds/ as input) with KG_HOME in a temp dir."""
    base = tmp_path_factory.mktemp("seed")
    s = Seed(base / "ws", base / "ws" / "graph.nq", base / "store", CliRunner())
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        r = s.run("build", "-q", "--store", str(s.store))
    assert r.exit_code == 0, r.output
    assert s.graph.is_file() and s.store.is_dir()
    return s


@pytest.fixture(scope="module")
def endpoint(seed: Seed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``oxigraph serve`` on 127.0.0.1 loaded as docs/scale.md says (the N-Triples export: the merge of all
    graphs, so the default graph is a set of triples as on every other backend); its /query URL."""
    exe = _oxigraph_cli()
    location = tmp_path_factory.mktemp("server") / "store"
    nt = location.parent / "graph.nt"
    assert seed.run("export", "-f", "nt", "-o", str(nt)).exit_code == 0
    subprocess.run([exe, "load", "--location", str(location), "--file", str(nt)],
                   check=True, capture_output=True, timeout=120)
    log = open(location.parent / "serve.log", "wb")  # noqa: SIM115 - closed in teardown
    proc: subprocess.Popen[bytes] | None = None
    url = ""
    try:
        for _attempt in range(3):  # the free port may be taken between the probe and the bind
            port = _free_port()
            proc = subprocess.Popen([exe, "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}",
                                     "--union-default-graph"], stdout=log, stderr=subprocess.STDOUT)
            url = f"http://127.0.0.1:{port}/query"
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    with urllib.request.urlopen(url + "?query=ASK%7B%7D", timeout=2) as resp:
                        if resp.status == 200:
                            break
                except (urllib.error.URLError, OSError):
                    time.sleep(0.1)
            else:
                proc.terminate()
                proc.wait(timeout=10)
                proc = None
                continue
            break
        if proc is None:
            pytest.fail(f"oxigraph serve did not answer: {(location.parent / 'serve.log').read_text(errors='replace')}")
        yield url
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


@pytest.fixture(scope="module")
def backends(seed: Seed, endpoint: str) -> dict[str, list[str]]:
    """The extra ``kg query`` options selecting each backend."""
    return {"memory": [], "rdflib": ["--engine", "rdflib"], "store": ["--store", str(seed.store)],
            "endpoint": ["--endpoint", endpoint]}


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def golden_rows(name: str) -> list[dict[str, str]]:
    path = GOLDEN / f"{name}.csv"
    assert path.exists(), f"no golden answer for {name}; run pytest tests/test_queries.py --regen-golden"
    return rows(path.read_text(encoding="utf-8"))


def one_error(r: Result, message: str) -> None:
    """Exit 2, nothing on stdout, exactly one stderr line: 'error: MESSAGE'."""
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.stdout == ""
    assert r.stderr == f"error: {message}\n"


def one_error_line(r: Result) -> str:
    """Exit 2, nothing on stdout, exactly one stderr line; that line."""
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and r.stderr.endswith("\n"), r.stderr
    return lines[0]


def distinct_triples(graph: Path) -> int:
    return len({(q.subject, q.predicate, q.object) for q in pyoxigraph.parse(path=str(graph),
                                                                             format=pyoxigraph.RdfFormat.N_QUADS)})


# ---------------------------------------------------------------- 1. golden answers


@pytest.mark.parametrize("name", NAMES)
def test_golden_answer(seed: Seed, name: str, request: pytest.FixtureRequest) -> None:
    """``kg query NAME -f csv`` on the seed workspace is byte for byte tests/golden/queries/NAME.csv."""
    r = seed("query", name, "-f", "csv")
    assert r.exit_code == 0 and r.stderr == "", r.output
    path = GOLDEN / f"{name}.csv"
    if request.config.getoption("--regen-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(r.stdout_bytes)
    assert path.exists(), f"no golden answer for {name}; run pytest tests/test_queries.py --regen-golden"
    assert r.stdout_bytes == path.read_bytes(), f"{name}: answer differs from {path}"


def test_one_golden_per_stored_query() -> None:
    """No stale golden file, none missing; every golden starts with the query's declared columns."""
    assert sorted(p.stem for p in GOLDEN.glob("*.csv")) == NAMES
    for name, q in stored_queries().items():
        header = (GOLDEN / f"{name}.csv").read_text(encoding="utf-8").splitlines()[0]
        assert header.split(",") == list(q.returns), name


# ---------------------------------------------------------------- 1b. hand-checked expectations
# Written from the Crossref JSON of the four seeds (read with json.load, fields named in the module docstring).

# DOI -> (title, issued year, authors in 'sequence' order as (given family, ORCID without https://orcid.org/))
SEED_WORKS: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "10.1109/cgo68049.2026.11395237": (  # 001_e76a659fba53646f.txt: no ORCID iDs
        "PASTA: A Modular Program Analysis Tool Framework for Accelerators", "2026",
        [("Mao Lin", ""), ("Hyeran Jeon", ""), ("Keren Zhou", "")]),
    "10.1145/3620665.3640367": (  # 004_bd9a625d0d2328ed.txt
        "A Journey of a 1,000 Kernels Begins with a Single Step: A Retrospective of Deep Learning on GPUs", "2024",
        [("Michael Davies", "0009-0004-1588-9604"), ("Ian McDougall", "0009-0005-4339-7233"),
         ("Selvaraj Anandaraj", "0009-0007-0815-9090"), ("Deep Machchhar", "0009-0004-0826-7874"),
         ("Rithik Jain", "0009-0008-7953-6786"), ("Karthikeyan Sankaralingam", "0000-0002-8315-2389")]),
    "10.1145/3725843.3756064": (  # 003_4f628e8d3ac34315.txt
        "Elk: Exploring the Efficiency of Inter-core Connected AI Chips with Deep Learning Compiler Techniques", "2025",
        [("Yiqi Liu", "0009-0006-8171-4970"), ("Yuqi Xue", "0009-0002-0363-9486"),
         ("Noelle Crawford", "0009-0006-3018-2273"), ("Jilong Xue", "0000-0002-4495-1997"),
         ("Jian Huang", "0000-0002-1125-671X")]),
    "10.1145/3772052.3772233": (  # 000_edf347c3761e3781.txt
        "Snap & Replay: A new way to analyze uarch-scale performance bottlenecks for ML accelerators", "2025",
        [("Ioannis Zarkadas", "0009-0000-2364-3891"), ("Amanda Tomlinson", "0009-0003-8209-5006"),
         ("Asaf Cidon", "0009-0007-4046-2022"), ("Baris Kasikci", "0000-0001-6122-8998"),
         ("Ofir Weisse", "0000-0001-7564-6007")]),
}
SEED_VENUES = {  # message.container-title[0]
    "10.1109/cgo68049.2026.11395237": "2026 IEEE/ACM International Symposium on Code Generation and Optimization (CGO)",
    "10.1145/3620665.3640367": "Proceedings of the 29th ACM International Conference on Architectural Support for "
                               "Programming Languages and Operating Systems, Volume 2",
    "10.1145/3725843.3756064": "Proceedings of the 58th IEEE/ACM International Symposium on Microarchitecture",
    "10.1145/3772052.3772233": "Proceedings of the 2025 ACM Symposium on Cloud Computing",
}
SEED_FUNDERS = {  # message.funder: DOI -> [(funder DOI, name, award)]; the other two seeds have no funder
    "10.1145/3620665.3640367": [("10.13039/100000001", "NSF (National Science Foundation)", "DGE-2137424")],
    "10.1145/3725843.3756064": [("10.13039/100000001", "NSF (National Science Foundation)", "2144796")],
}
SEED_REFERENCE_COUNTS = {"10.1109/cgo68049.2026.11395237": 72, "10.1145/3620665.3640367": 87,
                         "10.1145/3725843.3756064": 74, "10.1145/3772052.3772233": 63}
SEED_AFFILIATIONS = {  # distinct author affiliation names per seed
    "10.1109/cgo68049.2026.11395237": {"University of California,Merced,USA", "George Mason University,USA"},
    "10.1145/3620665.3640367": {"University of Wisconsin-Madison, Madison, Wisconsin, USA",
                                "University of Wisconsin-Madison, Madison, Wisconsin, United States of America"},
    "10.1145/3725843.3756064": {"University of Illinois Urbana Champaign, Urbana, Illinois, USA",
                                "University of Illinois at Urbana-Champaign, Urbana, Illinois, USA",
                                "Microsoft Research, Beijing, China"},
    "10.1145/3772052.3772233": {"Columbia University, New York, USA",
                                "University of California, San Diego, San Diego, USA",
                                "University of Washington, Seattle, USA", "Google, Sunnyvale, USA"},
}
# Reference keys whose Crossref 'DOI' field names the same work in two seeds (cocited, min-citing 2).
SEED_COCITED_DOIS = {
    "10.1145/3168831": {("10.1109/cgo68049.2026.11395237", "ref23"), ("10.1145/3772052.3772233", "e_1_3_2_1_54_1")},
    "10.1145/3352460.3358307": {("10.1109/cgo68049.2026.11395237", "ref11"),
                                ("10.1145/3772052.3772233", "e_1_3_2_1_60_1")},
    "10.1145/3458817.3476209": {("10.1109/cgo68049.2026.11395237", "ref40"),
                                ("10.1145/3725843.3756064", "e_1_3_3_2_41_2")},
    "10.1145/3503222.3507708": {("10.1109/cgo68049.2026.11395237", "ref22"),
                                ("10.1145/3772052.3772233", "e_1_3_2_1_62_1")},
    "10.1145/3579371.3589350": {("10.1145/3725843.3756064", "e_1_3_3_2_29_2"),
                                ("10.1145/3772052.3772233", "e_1_3_2_1_28_1")},
    "10.1145/3600006.3613165": {("10.1145/3725843.3756064", "e_1_3_3_2_31_2"),
                                ("10.1145/3772052.3772233", "e_1_3_2_1_32_1")},
}
# Co-cited through arXiv ids in the reference text (arXiv:1802.04730 Tensor Comprehensions, arXiv:2307.09288 Llama 2).
SEED_COCITED_ARXIV = {
    "10.48550/arxiv.1802.04730": {("10.1145/3620665.3640367", "e_1_3_2_1_81_1"),
                                  ("10.1145/3725843.3756064", "e_1_3_3_2_57_2")},
    "10.48550/arxiv.2307.09288": {("10.1145/3620665.3640367", "e_1_3_2_1_80_1"),
                                  ("10.1145/3725843.3756064", "e_1_3_3_2_54_2")},
}
# Co-cited through the tool catalogue: one seed cites AMOS (ISCA'22) by DOI only, another by its title only, and the
# catalogue knows that title as the paper of that DOI.
SEED_COCITED_CATALOGUE = {
    "10.1145/3470496.3527440": {("10.1145/3725843.3756064", "e_1_3_3_2_73_2"),
                                ("10.1145/3620665.3640367", "e_1_3_2_1_87_1")},
}
SEED_AMOS_TITLE = "amos: enabling automatic mapping for tensor computations on spatial accelerators"
# Organisations written two ways within one seed: one organisation each (kg/map/orgs.py).
SEED_SAME_ORGS = [
    {"University of Wisconsin-Madison, Madison, Wisconsin, USA",
     "University of Wisconsin-Madison, Madison, Wisconsin, United States of America"},
    {"University of Illinois Urbana Champaign, Urbana, Illinois, USA",
     "University of Illinois at Urbana-Champaign, Urbana, Illinois, USA"},
]
# PASTA cites its own earlier version (its arXiv preprint, by title): a node of its own, linked to the input work.
SEED_EARLIER_VERSION = ("10.1109/cgo68049.2026.11395237", "ref72")
# "TVM: An Automated End-to-End Optimizing Compiler for Deep Learning" is cited (text only, no DOI) by three seeds.
SEED_TVM = {("10.1145/3620665.3640367", "e_1_3_2_1_6_1"), ("10.1145/3725843.3756064", "e_1_3_3_2_13_2"),
            ("10.1145/3772052.3772233", "e_1_3_2_1_11_1")}


def _seed_messages() -> dict[str, dict]:
    out = {}
    for path in sorted(SEEDS.glob("*.txt")):
        m = json.loads(path.read_text(encoding="utf-8"))["message"]
        out[m["DOI"].lower()] = m
    return out


def test_hand_expectations_match_the_seed_json() -> None:
    """The literal expectations above are what the seed JSON says (guards them against drifting)."""
    msgs = _seed_messages()
    assert set(msgs) == set(SEED_WORKS)
    for doi, m in msgs.items():
        title, year, authors = SEED_WORKS[doi]
        assert m["type"] == "proceedings-article" and m["title"] == [title]
        assert str(m["issued"]["date-parts"][0][0]) == year
        got = [(f"{a['given']} {a['family']}", a.get("ORCID", "").removeprefix("https://orcid.org/"))
               for a in m["author"]]
        assert got == authors and m["author"][0]["sequence"] == "first"
        assert m["container-title"] == [SEED_VENUES[doi]]
        funders = [(f["DOI"], f["name"], award) for f in m.get("funder", []) for award in f.get("award", [])]
        assert funders == SEED_FUNDERS.get(doi, [])
        assert len(m["reference"]) == SEED_REFERENCE_COUNTS[doi]
        assert {aff["name"] for a in m["author"] for aff in a.get("affiliation", [])} == SEED_AFFILIATIONS[doi]
        keys = {r["key"]: r for r in m["reference"]}
        for cited, pairs in SEED_COCITED_DOIS.items():
            for citing, key in pairs:
                if citing == doi:
                    assert keys[key]["DOI"].lower() == cited
        for cited, pairs in SEED_COCITED_ARXIV.items():
            for citing, key in pairs:
                if citing == doi:
                    assert cited.removeprefix("10.48550/arxiv.") in json.dumps(keys[key])
        for citing, key in SEED_TVM:
            if citing == doi:
                assert "tvm: an automated end-to-end" in keys[key]["unstructured"].lower()
        for cited, pairs in SEED_COCITED_CATALOGUE.items():
            for citing, key in pairs:
                if citing == doi:
                    assert keys[key].get("DOI",
                                         "").lower() == cited or SEED_AMOS_TITLE in keys[key]["unstructured"].lower()
        if doi == SEED_EARLIER_VERSION[0]:
            assert keys[SEED_EARLIER_VERSION[1]]["article-title"].lower() == m["title"][0].lower()
        # no seed cites another seed by DOI: internal-citations and self-citations are empty
        assert not {r.get("DOI", "").lower() for r in m["reference"]} & set(msgs)


def test_hand_works() -> None:
    """works: one row per work, its authors in Crossref order (position 1..n) in one cell, one a line, and the
    venue (the container-title)."""
    got = golden_rows("works")
    assert len(got) == len(SEED_WORKS) == 4
    assert sum(len(r["authors"].split("\n")) for r in got) == 19
    expected = [{"doi": doi, "type": "proceedings-article", "title": title, "year": year,
                 "authors": "\n".join(name for name, _orcid in authors), "venue": SEED_VENUES[doi]}
                for doi, (title, year, authors) in sorted(SEED_WORKS.items())]
    assert got == expected
    first = {r["doi"]: r["authors"].split("\n")[0] for r in got}
    assert first == {"10.1109/cgo68049.2026.11395237": "Mao Lin", "10.1145/3620665.3640367": "Michael Davies",
                     "10.1145/3725843.3756064": "Yiqi Liu", "10.1145/3772052.3772233": "Ioannis Zarkadas"}


def test_hand_years() -> None:
    """years: issued 2024 (1 work), 2025 (2), 2026 (1), all proceedings-article."""
    assert [tuple(r.values()) for r in golden_rows("years")] == [
        ("2024", "proceedings-article", "1"), ("2025", "proceedings-article", "2"),
        ("2026", "proceedings-article", "1")]


def test_hand_venues() -> None:
    """venues: the four container-titles, one work each (ties ordered by venue IRI)."""
    got = golden_rows("venues")
    assert sorted(r["venue"] for r in got) == sorted(SEED_VENUES.values())
    assert all(r["works"] == "1" and r["venue_iri"].startswith("https://w3id.org/crossref-kg/venue/") for r in got)
    assert [r["venue_iri"] for r in got] == sorted(r["venue_iri"] for r in got)


def test_hand_funding() -> None:
    """funding: NSF (10.13039/100000001) funds two seeds, awards DGE-2137424 and 2144796; no other funder."""
    assert golden_rows("funding") == [
        {"doi": doi, "funder_iri": f"https://w3id.org/crossref-kg/funder/doi/{fdoi}", "funder": name,
         "funder_doi": fdoi, "award": award}
        for doi, funders in sorted(SEED_FUNDERS.items()) for fdoi, name, award in funders]


def test_hand_coauthors() -> None:
    """coauthors: every pair of authors of one seed, once, with 1 shared work (no ORCID recurs across seeds);
    people with an ORCID iD are ORCID nodes, the CGO authors (no iD) are per-record agents."""
    got = golden_rows("coauthors")
    expected_pairs = {frozenset((a[0], b[0])) for _t, _y, authors in SEED_WORKS.values()
                      for a, b in itertools.combinations(authors, 2)}
    assert len(got) == len(expected_pairs) == 10 + 3 + 10 + 15
    assert {frozenset((r["name_a"], r["name_b"])) for r in got} == expected_pairs
    assert all(r["works"] == "1" and r["person_iri_a"] < r["person_iri_b"] for r in got)
    orcid_of = {name: orcid for _t, _y, authors in SEED_WORKS.values() for name, orcid in authors}
    for r in got:
        for side in ("a", "b"):
            orcid = orcid_of[r[f"name_{side}"]]
            if orcid:
                assert r[f"person_iri_{side}"] == f"https://w3id.org/crossref-kg/person/orcid/{orcid}"
            else:
                assert r[f"person_iri_{side}"].startswith(
                    "https://w3id.org/crossref-kg/doi/10.1109/cgo68049.2026.11395237/author/")


def test_hand_cocited() -> None:
    """cocited: TVM (3 citing seeds) first, then the works two seeds cite by DOI or arXiv id, with their keys."""
    got = golden_rows("cocited")
    assert all(int(r["citing_works"]) >= 2 for r in got)
    tvm = [r for r in got if r["citing_works"] == "3"]
    assert got[:3] == tvm
    assert {(r["citing"], r["key"]) for r in tvm} == SEED_TVM
    assert {r["title"] for r in tvm} == {"TVM: An Automated End-to-End Optimizing Compiler for Deep Learning"}
    by_doi: dict[str, set[tuple[str, str]]] = {}
    for r in got:
        if r["cited"].startswith("https://doi.org/"):
            assert r["citing_works"] == "2"
            by_doi.setdefault(r["cited"].removeprefix("https://doi.org/"), set()).add((r["citing"], r["key"]))
    assert by_doi == {**SEED_COCITED_DOIS, **SEED_COCITED_ARXIV, **SEED_COCITED_CATALOGUE}


def test_hand_institution_collaboration() -> None:
    """institution-collaboration: the pairs of distinct organisations within each seed, an organisation written
    two ways being one (4+2+2+1 organisations -> 6+1+1+0 = 8 pairs), named by the spelling most records use (ties:
    code-point order); an organisation is never paired with itself."""
    got = golden_rows("institution-collaboration")

    def org(name: str) -> str:
        same = next((s for s in SEED_SAME_ORGS if name in s), {name})
        return min(same)
    expected = {frozenset(p) for names in SEED_AFFILIATIONS.values()
                for p in itertools.combinations(sorted({org(n) for n in names}), 2)}
    assert len(got) == len(expected) == 6 + 1 + 1 + 0
    assert {frozenset((r["name_a"], r["name_b"])) for r in got} == expected
    assert all(r["works"] == "1" and r["org_iri_a"] != r["org_iri_b"] for r in got)


def test_hand_empty_and_counted_answers() -> None:
    """No seed cites another seed; PASTA cites its own earlier version: internal-citations and self-citations list
    that one reference. references has exactly one row per reference (296 = 72+87+74+63; a reference citing two
    tools names the first by name); most-cited (min 1) lists every distinct cited work once."""
    citing, key = SEED_EARLIER_VERSION
    assert [(r["citing"], r["cited"], r["key"], r["link"]) for r in golden_rows("internal-citations")] == [
        (citing, citing, key, "earlier version")]
    assert [(r["citing"], r["cited"], r["key"], r["reason"]) for r in golden_rows("self-citations")] == [
        (citing, citing, key, "earlier version")]
    refs = golden_rows("references")
    per_work = {doi: len({r["position"] for r in refs if r["citing"] == doi}) for doi in SEED_WORKS}
    assert per_work == SEED_REFERENCE_COUNTS
    assert len(refs) == sum(SEED_REFERENCE_COUNTS.values())
    cited = golden_rows("most-cited")
    assert len({r["cited"] for r in cited}) == len(cited)
    assert len(cited) == len({r["cited"] for r in refs})


def _citing_by_tool() -> dict[str, set[str]]:
    """tool IRI -> the DOIs of the seeds citing it (from the tool-citations answer)."""
    out: dict[str, set[str]] = {}
    for r in golden_rows("tool-citations"):
        out.setdefault(r["tool_iri"], set()).add(r["citing"])
    return out


def test_hand_tools_by_year() -> None:
    """tools-by-year: for each tool and year, the seeds of that year (issued: SEED_WORKS) citing it, out of the
    seeds of that year (1 in 2024, 2 in 2025, 1 in 2026), the share in three decimals; the years of a tool add up
    to its citing_works in 'tools'."""
    year_of = {doi: year for doi, (_title, year, _authors) in SEED_WORKS.items()}
    works = {y: sum(1 for v in year_of.values() if v == y) for y in set(year_of.values())}
    assert works == {"2024": 1, "2025": 2, "2026": 1}
    names = {r["tool_iri"]: r["tool"] for r in golden_rows("tools")}
    expected = []
    for iri, dois in _citing_by_tool().items():
        for year in sorted({year_of[d] for d in dois}):
            n = sum(1 for d in dois if year_of[d] == year)
            expected.append({"tool": names[iri], "year": year, "citing_works": str(n), "works": str(works[year]),
                             "share": f"{n / works[year]:.3f}", "tool_iri": iri})
    expected.sort(key=lambda r: (r["tool"].lower(), r["tool_iri"], r["year"]))
    got = golden_rows("tools-by-year")
    assert got == expected
    assert {r["share"] for r in got} == {"0.500", "1.000"}  # (both 2025 seeds citing a tool: 1.000)
    assert [r for r in got if r["tool"] == "PyTorch"] == [
        {"tool": "PyTorch", "year": y, "citing_works": n, "works": n, "share": "1.000",
         "tool_iri": "https://w3id.org/crossref-kg/tool/pytorch"} for y, n in (("2024", "1"), ("2025", "2"),
                                                                               ("2026", "1"))]
    per_tool = {iri: sum(int(r["citing_works"]) for r in got if r["tool_iri"] == iri) for iri in names}
    assert per_tool == {r["tool_iri"]: int(r["citing_works"]) for r in golden_rows("tools")}


def test_hand_tool_first_cited() -> None:
    """tool-first-cited: each tool's earliest citing seed by issued year, the least DOI among that year's; earliest
    first, then by name; every tool of 'tools' once, with its citing_works there."""
    year_of = {doi: year for doi, (_title, year, _authors) in SEED_WORKS.items()}
    tools = {r["tool_iri"]: r for r in golden_rows("tools")}
    expected = []
    for iri, dois in _citing_by_tool().items():
        year, doi = min((year_of[d], d.lower(), d) for d in dois)[::2]
        expected.append({"tool": tools[iri]["tool"], "year": year, "citing": doi,
                         "citing_works": tools[iri]["citing_works"], "tool_iri": iri})
    expected.sort(key=lambda r: (r["year"], r["tool"].lower(), r["tool_iri"]))
    got = golden_rows("tool-first-cited")
    assert got == expected and len(got) == len(tools)
    assert got[0] == {"tool": "AMOS", "year": "2024", "citing": "10.1145/3620665.3640367", "citing_works": "2",
                      "tool_iri": "https://w3id.org/crossref-kg/tool/amos-compiler"}
    # the first citation falls in the year of the oldest seed for the tools the 2024 seed cites
    assert sum(1 for r in got if r["year"] == "2024") == 18


#: (citing_works, works) -> the share tools-by-year prints: three decimals, rounded half up
SHARE_CASES = {(1, 3): "0.333", (2, 3): "0.667", (1, 7): "0.143", (1, 16): "0.063", (5, 8): "0.625",
               (1, 2000): "0.001", (1, 2001): "0.000", (2, 2): "1.000", (7, 10): "0.700"}


def share_query() -> str:
    """The share's BINDs of queries/tools-by-year.rq over the counts of SHARE_CASES (the seeds give only 0.500 and
    1.000)."""
    text = (QUERIES / "tools-by-year.rq").read_text(encoding="utf-8")
    binds = [line.strip() for line in text.splitlines()
             if line.strip().startswith("BIND (") and ("?per_mille" in line or "?padded" in line)]
    assert len(binds) == 3, binds
    values = " ".join(f"({c} {w})" for c, w in SHARE_CASES)
    return ("PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\nSELECT ?citing_works ?works ?share WHERE {\n"
            f"  VALUES (?citing_works ?works) {{ {values} }}\n  " + "\n  ".join(binds) +
            "\n}\nORDER BY ?works ?citing_works")


def share_rows(csv_text: str) -> dict[tuple[int, int], str]:
    return {(int(r["citing_works"]), int(r["works"])): r["share"] for r in rows(csv_text)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_share_prints_alike_on_every_backend(seed: Seed, backends: dict[str, list[str]], backend: str) -> None:
    """tools-by-year's share, made from integers only, is the same text on every engine, rounded half up."""
    assert share_rows(seed.ok("query", "-e", share_query(), "-f", "csv", *backends[backend])) == SHARE_CASES


def test_tools_by_year_counts_works_without_a_year_as_unknown(tmp_path: Path) -> None:
    """A seed without 'issued' (so no publication year): its tools under the year 'unknown', out of the one work of
    that year, and its first citations there when no dated work cites the tool; the same on Oxigraph and rdflib."""
    corpus = tmp_path / "in"
    corpus.mkdir()
    undated = "10.1145/3772052.3772233"
    for src in sorted(SEEDS.glob("*.txt")):
        record = json.loads(src.read_text(encoding="utf-8"))
        if record["message"]["DOI"].lower() == undated:
            del record["message"]["issued"]
        (corpus / src.name).write_text(json.dumps(record), encoding="utf-8")
    s = Seed(tmp_path / "ws", tmp_path / "ws" / "graph.nq", tmp_path / "store", CliRunner())
    assert s.run("build", "-q", "--validate", "none", str(corpus)).exit_code == 0
    by_year = {name: s.ok("query", name, "-f", "csv") for name in ("tools-by-year", "tool-first-cited")}
    for name, text in by_year.items():
        assert s.ok("query", name, "-f", "csv", "--engine", "rdflib") == text, name
    cited = _citing_by_tool()
    unknown = [r for r in rows(by_year["tools-by-year"]) if r["year"] == "unknown"]
    assert {r["tool_iri"] for r in unknown} == {iri for iri, dois in cited.items() if undated in dois}
    assert {(r["citing_works"], r["works"], r["share"]) for r in unknown} == {("1", "1", "1.000")}
    first = {r["tool_iri"]: (r["year"], r["citing"]) for r in rows(by_year["tool-first-cited"])}
    assert {iri for iri, (year, _doi) in first.items() if year == "unknown"} == {
        iri for iri, dois in cited.items() if dois == {undated}}
    assert all(doi == undated for year, doi in first.values() if year == "unknown")


# ---------------------------------------------------------------- 2. backend equivalence


@pytest.mark.parametrize("name", NAMES)
def test_backends_agree(seed: Seed, backends: dict[str, list[str]], name: str) -> None:
    """Same columns, same rows in the same order, same terms on memory, rdflib, the store and the endpoint."""
    answers = {b: json.loads(seed.ok("query", name, "-f", "json", *opts)) for b, opts in backends.items()}
    ref = answers["memory"]
    assert ref["head"]["vars"] == list(stored_queries()[name].returns)
    for b, doc in answers.items():
        assert doc["head"] == ref["head"], b
        assert doc["results"]["bindings"] == ref["results"]["bindings"], f"{name}: {b} differs from memory"
    csvs = {b: seed.ok("query", name, "-f", "csv", *opts) for b, opts in backends.items() if b != "rdflib"}
    assert len(set(csvs.values())) == 1


# ---------------------------------------------------------------- 3. injection

STRING_PAYLOADS = [
    'profiler" } ; DROP ALL ; SELECT * WHERE { ?s ?p ?o . FILTER("1',
    'x\\" } UNION { ?s ?p ?o } #',
    "profiler\n} UNION { ?s ?p ?o }\r\n#",
    "''' } UNION { ?s ?p ?o } '''",
    '""" } UNION { ?s ?p ?o } """',
    "> } UNION { ?s ?p ?o } <",
    "profiler\\",
]
IRI_PAYLOADS = ["https://x.org/a> } UNION { ?s ?p ?o } #", "<https://x.org/a> } UNION { ?s ?p ?o } #>",
                'https://x.org/"a', "not an iri"]
INTEGER_PAYLOADS = ["2 } UNION { ?s ?p ?o } #", "2.5", "0x2"]


def _params_of(ptype: str) -> list[tuple[str, str]]:
    return [(q.name, p.name) for q in stored_queries().values() for p in q.params if p.type == ptype]


def _triples_seen(seed: Seed, backend: str, opts: list[str]) -> str:
    if backend == "rdflib":
        return seed.ok("query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "-f", "csv", *opts)
    return json.loads(seed.ok("stats", "-f", "json", *opts))["results"]["bindings"][0]["triples"]["value"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_injection_changes_nothing(seed: Seed, backends: dict[str, list[str]], backend: str) -> None:
    """Values full of SPARQL syntax are data: a string value answers like a harmless non-matching value, an
    integer or IRI value that is not one is refused (exit 2, one line), and the graph keeps every triple."""
    opts = backends[backend]
    assert _params_of("string") and _params_of("iri") and _params_of("integer")
    before = _triples_seen(seed, backend, opts)
    graph_bytes = seed.graph.read_bytes()
    for query, param in _params_of("string"):  # the stored string parameters have allowed values: refused
        for payload in STRING_PAYLOADS:
            line = one_error_line(seed("query", query, "-p", f"{param}={payload}", *opts))
            assert line.startswith(f"error: --param {param}=") and re.search(
                r" is not allowed; (did you mean '[a-z-]+'\? )?give one of: ", line), line
    # a free string parameter (a query file's): the payloads answer like a harmless non-matching value
    free = _free_string(seed)
    harmless = seed.ok("query", str(free), "-p", "category=no-such-value-zzz", "-f", "csv", *opts)
    assert harmless == "name\n"
    for payload in STRING_PAYLOADS:
        assert seed.ok("query", str(free), "-p", f"category={payload}", "-f", "csv", *opts) == harmless, payload
    for query, param in _params_of("iri"):
        r = seed("query", query, "-p", f"{param}=https://x.org/no-such-thing", "-f", "csv", *opts)
        assert (r.exit_code, r.stdout, r.stderr) == (0, ",".join(stored_queries()[query].returns) + "\n", (
            f"note: -p {param}=https://x.org/no-such-thing names nothing in the graph (<https://x.org/no-such-thing>); "
            "check the value ('kg tools' and 'kg topics' list the ids)\n"))
        for payload in IRI_PAYLOADS:
            line = one_error_line(seed("query", query, "-p", f"{param}={payload}", *opts))
            assert line.startswith(f"error: --param {param}=") and \
                " is not an IRI, a DOI or a prefixed name (" in line, line
    for query, param in _params_of("integer"):
        for payload in INTEGER_PAYLOADS:
            one_error(seed("query", query, "-p", f"{param}={payload}", *opts),
                      f"--param {param}={payload!r} is not an integer; give 1 or more")  # all are integer(1..)
    assert _triples_seen(seed, backend, opts) == before
    assert seed.graph.read_bytes() == graph_bytes


def _free_string(seed: Seed) -> Path:
    """A query file with a string parameter of no allowed values (the stored ones all have a list)."""
    free = seed.home.parent / "free-string.rq"
    free.write_text("#+ name: free-string\n#+ description: d\n#+ param: category string = profiler c\n"
                    "#+ returns: name\n#+ column: name  A tool's name.\n"
                    "SELECT ?name WHERE { ?t <https://schema.org/applicationCategory> ?category ;"
                    " <https://schema.org/name> ?name }\n", encoding="utf-8")
    return free


def test_backslash_u_in_a_string_value_is_data_on_rdflib(seed: Seed, backends: dict[str, list[str]]) -> None:
    free = str(_free_string(seed))
    memory = seed.ok("query", free, "-p", "category=\\u0070rofiler", "-f", "csv")
    assert memory == "name\n"
    assert seed.ok("query", free, "-p", "category=\\u0070rofiler", "-f", "csv", *backends["rdflib"]) == memory
    assert seed.ok("query", free, "-p", "category=profiler", "-f", "csv") != memory  # the file does match things


# ---------------------------------------------------------------- 4. malformed headers

GOOD_HEADER = ["#+ name: {stem}", "#+ description: A test query.", "#+ param: category string = x A category.",
               "#+ returns: category", "#+ column: category  The category bound."]
BODY = "SELECT ?category WHERE { } ORDER BY ?category\n"


def _rq(tmp_path: Path, stem: str, header: list[str]) -> Path:
    path = tmp_path / f"{stem}.rq"
    path.write_text("\n".join(line.format(stem=stem) for line in header) + "\n" + BODY, encoding="utf-8")
    return path


def test_a_good_query_file_runs(seed: Seed, tmp_path: Path) -> None:
    path = _rq(tmp_path, "good", GOOD_HEADER)
    assert seed.ok("query", str(path), "-f", "csv") == "category\nx\n"
    assert seed.ok("query", str(path), "-p", "category=y", "-f", "csv") == "category\ny\n"


TYPES = ", ".join(PARAM_TYPES)
BAD_HEADERS = {
    "missing-name": ([GOOD_HEADER[1], GOOD_HEADER[2], GOOD_HEADER[3]],
                     "{path}: header has no '#+ name:' line; add it"),
    "name-not-stem": (["#+ name: other-name", *GOOD_HEADER[1:]],
                      "{path}:1: header name 'other-name' must be kebab-case and equal the file name"),
    "unknown-type": ([GOOD_HEADER[0], GOOD_HEADER[1], "#+ param: category text = x A category.", GOOD_HEADER[3]],
                     "{path}:3: malformed param 'category text = x A category.'; write "
                     f"'#+ param: NAME TYPE[(SPEC)] = DEFAULT description' with TYPE one of {TYPES}; SPEC: "
                     "iri(tool|work|topic), integer(MIN..MAX), decimal(MIN..MAX) (either end may be left out), "
                     "string(a|b|c) or string(@tool-categories)"),
    "no-default": ([GOOD_HEADER[0], GOOD_HEADER[1], "#+ param: category string A category.", GOOD_HEADER[3]],
                   "{path}:3: param 'category' has no default; give one with '= DEFAULT' so the query runs bare"),
    "unknown-key": ([*GOOD_HEADER[:2], "#+ author: someone", *GOOD_HEADER[2:]],
                    "{path}:3: unknown header key 'author'; use name, description, param, returns, column, lists, "
                    "ordered, untitled, page, repeatable, sides"),
    "sides-not-params": ([*GOOD_HEADER, "#+ sides: category topic-b"],
                         "{path}:6: write '#+ sides: PARAM_A PARAM_B' naming the two topic parameters of the headline "
                         "question, both '#+ param:' lines of this query"),
    "page-not-index": ([*GOOD_HEADER, "#+ page: rank"],
                       "{path}:6: write '#+ page: index' (kg keeps the listing's rows in order in the store's index, "
                       "and reads a page from there)"),
    "duplicated-key": ([*GOOD_HEADER, "#+ description: Again."],
                       "{path}:6: header key 'description' given twice; keep one"),
    "no-colon": ([GOOD_HEADER[0], "#+ broken", *GOOD_HEADER[1:]],
                 "{path}:2: malformed header line '#+ broken'; write '#+ key: value'"),
    "column-not-described": (GOOD_HEADER[:4],
                             "{path}:4: column 'category' is not described; add a line '#+ column: category  what "
                             "it holds'"),
    "column-without-text": ([*GOOD_HEADER[:4], "#+ column: category"],
                            "{path}:5: malformed column 'category'; write '#+ column: NAME  what the column holds'"),
    "column-not-returned": ([*GOOD_HEADER, "#+ column: n  A count."],
                            "{path}:6: '#+ column: n' names a column the query does not return; describe the columns "
                            "of '#+ returns:'"),
    "column-twice": ([*GOOD_HEADER, "#+ column: category  Again."],
                     "{path}:6: column 'category' is described twice; keep one"),
    "untitled-not-returned": ([*GOOD_HEADER, "#+ untitled: cited category"],
                              "{path}:6: write '#+ untitled: CITED TITLE' with CITED the column of cited works and "
                              "TITLE the column of their titles, both columns of '#+ returns:'"),
}


@pytest.mark.parametrize("case", sorted(BAD_HEADERS))
def test_malformed_header(seed: Seed, tmp_path: Path, case: str) -> None:
    """``kg query FILE`` with a bad header: exit 2 and the exact one-line message naming the file (and line)."""
    header, message = BAD_HEADERS[case]
    path = _rq(tmp_path, case, header)
    one_error(seed("query", str(path)), message.format(path=path))


def test_name_mismatch_names_its_line(seed: Seed, tmp_path: Path) -> None:
    path = _rq(tmp_path, "name-line", ["#+ name: other-name", *GOOD_HEADER[1:]])
    assert one_error_line(seed("query", str(path))).startswith(f"error: {path}:1: ")


def test_duplicated_param_is_a_header_error(seed: Seed, tmp_path: Path) -> None:
    path = _rq(tmp_path, "dup-param", [*GOOD_HEADER, "#+ param: category string = y Again."])
    line = one_error_line(seed("query", str(path)))
    assert line.startswith(f"error: {path}:6: ") and "'category'" in line


def test_where_in_a_comment_does_not_take_the_values_block(seed: Seed, tmp_path: Path) -> None:
    path = tmp_path / "commented.rq"
    path.write_text("\n".join(line.format(stem="commented") for line in GOOD_HEADER)
                    + "\n# the parameters are bound in the WHERE { } clause below\n" + BODY, encoding="utf-8")
    assert seed.ok("query", str(path), "-f", "csv") == "category\nx\n"


def test_date_param_refuses_an_impossible_date(seed: Seed, tmp_path: Path) -> None:
    path = _rq(tmp_path, "dated", [GOOD_HEADER[0], GOOD_HEADER[1], "#+ param: day date = 2024-01-01 A day.",
                                   "#+ returns: day", "#+ column: day  The day bound."])
    path.write_text(path.read_text().replace("?category", "?day"))
    assert seed.ok("query", str(path), "-f", "csv") == "day\n2024-01-01\n"
    one_error(seed("query", str(path), "-p", "day=2024-13-45"), "--param day='2024-13-45' is not a date (YYYY-MM-DD)")


# ---------------------------------------------------------------- 5. errors


def test_unknown_query_name(seed: Seed) -> None:
    one_error(seed("query", "no-such-query"),
              f"unknown query 'no-such-query'; run 'kg queries' to list them ({', '.join(NAMES)})")


def test_unknown_parameter(seed: Seed) -> None:
    one_error(seed("query", "works", "-p", "x=1"), "query 'works' has no parameter 'x'; its parameters: none")
    one_error(seed("query", "cocited", "-p", "min_citing=1"),
              "query 'cocited' has no parameter 'min_citing'; did you mean 'min-citing'? its parameters: "
              "min-citing")


def test_repeated_and_absent_parameter_values(seed: Seed) -> None:
    """A repeatable parameter given again answers for any of its values (ids in any case); one that is not is
    exit 2 naming it; a value that names nothing in the graph answers no row and says so on stderr (exit 0)."""
    import csv as csv_module
    both = seed("query", "tools-cited-by-both", "-p", "topic-a=Profiling", "-p", "topic-a=program-analysis",
                "-f", "csv")
    assert both.exit_code == 0, both.output
    tools = [row[0] for row in csv_module.reader(io.StringIO(both.stdout))][1:]
    assert tools == ["FlashAttention", "Megatron-LM", "PyTorch", "TVM", "vLLM", "XLA"]  # (one row a tool)
    one_error(seed("query", "most-cited", "-p", "min-citing=1", "-p", "min-citing=2"),
              "--param min-citing is given 2 times ('1', '2'); query 'most-cited' takes one value of it: give it once")
    r = seed("query", "works-citing", "-p", "target=10.1145/9999999.9999", "-f", "csv")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "citing,key,how,text\n", (
        "note: -p target=10.1145/9999999.9999 names nothing in the graph (<https://doi.org/10.1145/9999999.9999>); "
        "check the value ('kg tools' and 'kg topics' list the ids)\n"))
    assert seed("query", "works-citing", "-p", "target=PyTorch", "-f", "csv").stdout == \
        seed("query", "works-citing", "-p", "target=pytorch", "-f", "csv").stdout


def test_integer_param_given_a_non_integer(seed: Seed) -> None:
    one_error(seed("query", "most-cited", "-p", "min-citing=two"),
              "--param min-citing='two' is not an integer; give 1 or more")
    assert seed.ok("query", "most-cited", "-p", "min-citing= 3 ", "-f", "csv") == \
        seed.ok("query", "most-cited", "-p", "min-citing=3", "-f", "csv")


def test_iri_param_given_a_non_iri(seed: Seed) -> None:
    one_error(seed("query", "works-citing", "-p", "target=not an iri"),
              "--param target='not an iri' is not an IRI, a DOI or a prefixed name (biro:, c4o:, cito:, datacite:, "
              "dcterms:, fabio:, foaf:, frapo:, frbr:, kg:, literal:, owl:, prism:, pro:, prov:, rdf:, rdfs:, schema:, "
              "skos:, tool:, topic:, xsd:); the parameter takes a tool or work")
    # <...> around an IRI is accepted and means the same IRI; so are a bare tool id and tool:ID
    golden = (GOLDEN / "works-citing.csv").read_text(encoding="utf-8")
    for typed in ("pytorch", "tool:pytorch"):
        assert seed.ok("query", "works-citing", "-p", f"target={typed}", "-f", "csv") == golden, typed
    assert seed.ok("query", "works-citing", "-p", "target=<https://w3id.org/crossref-kg/tool/pytorch>", "-f", "csv") \
        == (GOLDEN / "works-citing.csv").read_text(encoding="utf-8")


SYNTAX_ERROR = "SELECT * WHERE { ?s ?p }"


def test_syntax_error_in_e_text(seed: Seed, backends: dict[str, list[str]]) -> None:
    """Exit 2 with one line on every backend; on Oxigraph the parser's first line, verbatim."""
    try:
        pyoxigraph.Store().query(SYNTAX_ERROR)
    except SyntaxError as e:
        detail = str(e).splitlines()[0]
    else:
        pytest.fail("pyoxigraph accepted a broken query")
    message = f"the query is not valid SPARQL ({detail}); fix the query text"
    one_error(seed("query", "-e", SYNTAX_ERROR), message)
    one_error(seed("query", "-e", SYNTAX_ERROR, *backends["store"]), message)
    line = one_error_line(seed("query", "-e", SYNTAX_ERROR, *backends["rdflib"]))
    assert line.startswith("error: the query failed on rdflib (")
    line = one_error_line(seed("query", "-e", SYNTAX_ERROR, *backends["endpoint"]))
    assert line == (f"error: {backends['endpoint'][1]}: the endpoint answered HTTP 400 ({detail}); "
                    "check the query and the endpoint")


def test_endpoint_down(seed: Seed) -> None:
    url = f"http://127.0.0.1:{_free_port()}/sparql"
    line = one_error_line(seed("query", "works", "--endpoint", url))
    assert line.startswith(f"error: {url}: the endpoint cannot be reached (")
    assert line.endswith("); check the URL and that the server runs")


class _Always500(http.server.BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = b"internal trouble\nsecond line"
        self.send_response(500)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


@pytest.fixture
def http500() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Always500)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/sparql"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_endpoint_answers_http_500(seed: Seed, http500: str) -> None:
    one_error(seed("query", "works", "--endpoint", http500),
              f"{http500}: the endpoint answered HTTP 500 (internal trouble); check the query and the endpoint")
    one_error(seed("stats", "--endpoint", http500),
              f"{http500}: the endpoint answered HTTP 500 (internal trouble); check the query and the endpoint")


def test_store_that_is_not_a_store(seed: Seed, tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    one_error(seed("query", "works", "--store", str(missing)),
              f"{missing}: is not a crossref-kg store; fill it with 'kg build --store DIR'")
    one_error(seed("query", "works", "--store", str(seed.graph)),
              f"{seed.graph}: is not a crossref-kg store; fill it with 'kg build --store DIR'")
    for folder in (tmp_path / "empty", seed.home):  # an empty folder; the workspace folder (graph.nq, no store)
        folder.mkdir(exist_ok=True)
        before = sorted(folder.iterdir())
        line = one_error_line(seed("query", "works", "--store", str(folder)))
        assert line.startswith(f"error: {folder}: cannot be opened as an Oxigraph store (")
        assert line.endswith("); rebuild it with 'kg build --store DIR'")
        assert sorted(folder.iterdir()) == before  # opening did not create a store there


def test_store_with_a_corrupt_current_file(seed: Seed, tmp_path: Path) -> None:
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "CURRENT").write_text("junk\n")
    r = seed.run("query", "works", "--store", str(folder))
    line = one_error_line(r)
    assert line.startswith(f"error: {folder}: cannot be opened as an Oxigraph store (")


# ---------------------------------------------------------------- 6. listing, ordering, stats, formats


def test_kg_queries_lists_every_stored_query(seed: Seed) -> None:
    lines = seed.ok("queries").splitlines()
    stored = stored_queries()
    listed = [line.split("  ", 1)[0] for line in lines]
    assert sorted(listed) == NAMES == sorted(stored) and len(listed) == len(NAMES)
    width = max(map(len, NAMES))  # (an aligned list: the parameters are in 'kg queries NAME')
    for line, name in zip(lines, listed, strict=True):
        assert line == f"{name.ljust(width)}  {stored[name].description}"


def test_kg_queries_is_sorted_by_name(seed: Seed) -> None:
    assert [line.split("  ", 1)[0] for line in seed.ok("queries").splitlines()] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_stored_query_is_totally_ordered_and_deterministic(name: str) -> None:
    q = stored_queries()[name]
    upper = q.text.upper()
    assert "ORDER BY" in upper, f"{name} has no ORDER BY"
    assert "SAMPLE" not in upper, name
    # a GROUP_CONCAT's order is the engine's: only in a declared list column, which the query layer sorts
    assert "GROUP_CONCAT" not in upper or q.lists, name
    assert q.name == name and q.description and q.returns


def test_stats_match_counting_queries(seed: Seed, backends: dict[str, list[str]]) -> None:
    """works=4 and every count equals an independent ``kg query -e`` count and what the seeds hold."""
    doc = json.loads(seed.ok("stats", "-f", "json"))
    stats = {k: int(v["value"]) for k, v in doc["results"]["bindings"][0].items()}

    def count(text: str) -> int:
        return int(rows(seed.ok("query", "-e", text, "-f", "csv"))[0]["n"])

    prefixes = ("PREFIX kg: <https://w3id.org/crossref-kg/ontology#> PREFIX frbr: <http://purl.org/vocab/frbr/core#> "
                "PREFIX biro: <http://purl.org/spar/biro/> PREFIX prism: "
                "<http://prismstandard.org/namespaces/basic/2.0/> "
                "PREFIX pro: <http://purl.org/spar/pro/> ")
    assert stats["works"] == 4 == len(SEED_WORKS)
    assert stats["works"] == count(prefixes + "SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?w prism:doi ?d ; "
                                              "kg:crossrefType ?t }")
    assert stats["references"] == sum(SEED_REFERENCE_COUNTS.values()) == count(
        prefixes + "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?w kg:crossrefType ?t ; frbr:part ?r . ?r kg:position ?p "
                   "}")
    assert stats["cited_works"] == len(golden_rows("most-cited")) == count(
        prefixes + "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?w frbr:part ?r . ?r biro:references ?c }")
    assert stats["tools"] == len(golden_rows("tools")) == count(
        prefixes + "SELECT (COUNT(DISTINCT ?t) AS ?n) WHERE { ?r kg:citesTool ?t }")
    assert stats["people"] == sum(len(a) for _t, _y, a in SEED_WORKS.values()) == count(
        prefixes + "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?role pro:withRole pro:author ; pro:isHeldBy ?p }")
    assert stats["triples"] == distinct_triples(seed.graph) == count(
        "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o WHERE { ?s ?p ?o } }")
    for b in ("store", "endpoint"):
        assert json.loads(seed.ok("stats", "-f", "json", *backends[b])) == doc, b
    assert seed.ok("stats", "-f", "csv") == (
        "works,references,cited_works,tools,people,triples\n"
        f"4,296,{stats['cited_works']},{stats['tools']},19,{stats['triples']}\n")


def test_stats_json_is_sparql_results(seed: Seed) -> None:
    doc = json.loads(seed.ok("stats", "-f", "json"))
    assert set(doc) == {"head", "results"}
    assert doc["head"] == {"vars": ["works", "references", "cited_works", "tools", "people", "triples"]}
    bindings = doc["results"]["bindings"]
    assert isinstance(bindings, list) and len(bindings) == 1
    assert set(bindings[0]) == set(doc["head"]["vars"])
    for term in bindings[0].values():
        assert term["type"] == "literal" and term["datatype"] == XSD_INTEGER and term["value"].isdigit()


@pytest.mark.parametrize("name", NAMES)
def test_table_off_a_terminal_is_whole(seed: Seed, name: str) -> None:
    """Off a terminal nothing is cut: every value of the json answer is in the table whole (an IRI as the
    table shows it: a DOI or a prefixed name where it has one)."""
    from kg.query.output import short_iri
    out = seed.ok("query", name)
    lines = out.splitlines()
    assert "…" not in out
    for binding in json.loads(seed.ok("query", name, "-f", "json"))["results"]["bindings"]:
        for term in binding.values():
            value = short_iri(term["value"]) if term["type"] == "uri" else term["value"].replace("\n", " ")
            assert value in out, value
    n = len(golden_rows(name))
    if stored_queries()[name].untitled:  # (the tables of cited works end with a note on those without a title)
        assert lines.pop().startswith("note: ")
    assert lines[-1] == f"({n} row{'s' if n != 1 else ''})"


CONSTRUCT = ("PREFIX fabio: <http://purl.org/spar/fabio/> PREFIX kg: <https://w3id.org/crossref-kg/ontology#> "
             "CONSTRUCT { ?w <https://example.org/year> ?y } WHERE { ?w kg:crossrefType ?t ; fabio:hasPublicationYear "
             "?y }")
ASK_TRUE = 'ASK { ?w <https://w3id.org/crossref-kg/ontology#crossrefType> "proceedings-article" }'
ASK_FALSE = 'ASK { ?w <https://w3id.org/crossref-kg/ontology#crossrefType> "journal-article" }'


def test_construct_and_ask_agree_on_every_backend(seed: Seed, backends: dict[str, list[str]]) -> None:
    graphs = {b: seed.ok("query", "-e", CONSTRUCT, "-f", "nt", *opts) for b, opts in backends.items()}
    expected = "".join(sorted(f'<https://doi.org/{doi}> <https://example.org/year> '
                              f'"{year}"^^<http://www.w3.org/2001/XMLSchema#gYear> .\n'
                              for doi, (_t, year, _a) in SEED_WORKS.items()))
    assert graphs == {b: expected for b in backends}
    for text, answer in ((ASK_TRUE, True), (ASK_FALSE, False)):
        for b, opts in backends.items():
            assert seed.ok("query", "-e", text, *opts) == ("true\n" if answer else "false\n"), b
            assert json.loads(seed.ok("query", "-e", text, "-f", "json", *opts)) == {"head": {}, "boolean": answer}, b


# ---------------------------------------------------------------- bugs found on other inputs


def test_prefix_named_construct_is_still_a_select_on_the_endpoint(seed: Seed, backends: dict[str, list[str]]) -> None:
    text = "PREFIX construct: <https://example.org/> SELECT (COUNT(*) AS ?n) WHERE { ?s construct:p ?o }"
    assert seed.ok("query", "-e", text, "-f", "csv", *backends["endpoint"]) == seed.ok("query", "-e", text, "-f", "csv")


def test_union_of_graphs_is_a_set_on_oxigraph(seed: Seed, backends: dict[str, list[str]]) -> None:
    text = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    triples = str(distinct_triples(seed.graph))
    for b, opts in backends.items():
        assert rows(seed.ok("query", "-e", text, "-f", "csv", *opts))[0]["n"] == triples, b


@pytest.fixture(scope="module")
def shared_author_ws(tmp_path_factory: pytest.TempPathFactory) -> Seed:
    """Two records by the same five ORCID authors, the second citing the first (seed 000, trimmed, twice)."""
    base = tmp_path_factory.mktemp("shared-authors")
    message = json.loads((SEEDS / "000_edf347c3761e3781.txt").read_text(encoding="utf-8"))["message"]
    first = {**message, "reference": message["reference"][:3]}
    second = {**first, "DOI": "10.5555/kg.shared.1", "URL": "https://doi.org/10.5555/kg.shared.1",
              "title": ["A follow-up by the same authors"],
              "reference": [*first["reference"],
                            {"key": "self", "DOI": message["DOI"], "doi-asserted-by": "publisher"}]}
    for name, m in (("a.json", first), ("b.json", second)):
        (base / name).write_text(json.dumps({"status": "ok", "message-type": "work", "message-version": "1.0.0",
                                             "message": m}), encoding="utf-8")
    s = Seed(base / "ws", base / "ws" / "graph.nq", base / "store", CliRunner())
    r = s.run("build", "-q", str(base / "a.json"), str(base / "b.json"))
    assert r.exit_code == 0, r.output
    return s


def test_shared_authors_as_rdflib_sees_them(shared_author_ws: Seed) -> None:
    """The reference engine: each author once per work, five self-citations (the control for the xfail below)."""
    works = rows(shared_author_ws.ok("query", "works", "-f", "csv", "--engine", "rdflib"))
    assert len(works) == 2 and [len(set(r["authors"].split("\n"))) for r in works] == [5, 5]
    selfc = rows(shared_author_ws.ok("query", "self-citations", "-f", "csv", "--engine", "rdflib"))
    assert [(r["citing"], r["name"], r["key"]) for r in selfc] == [
        ("10.5555/kg.shared.1", name, "self") for name in
        ("Baris Kasikci", "Ofir Weisse", "Ioannis Zarkadas", "Amanda Tomlinson", "Asaf Cidon")]


@pytest.mark.parametrize("name", ["works", "self-citations"])
def test_shared_authors_are_not_repeated(shared_author_ws: Seed, name: str) -> None:
    memory = shared_author_ws.ok("query", name, "-f", "csv")
    got = rows(memory)
    assert len(got) == len({tuple(r.values()) for r in got})
    for r in got:  # (each author once in a work's cell)
        assert len(r.get("authors", "").split("\n")) == len(set(r.get("authors", "").split("\n")))
    assert memory == shared_author_ws.ok("query", name, "-f", "csv", "--engine", "rdflib")


def test_parameters_reach_subqueries(seed: Seed) -> None:
    """bibliographic-coupling counts in subqueries: its parameters must restrict them too. With
    min-shared=1 the pairs that share a single cited work come back (2 more rows);
    max-citing=1 leaves no cited work that two works share, hence no pair."""
    q = stored_queries()["bibliographic-coupling"]
    assert bound_text(q, {}).count("VALUES (?min_shared ?max_citing)") == q.text.count("WHERE {") == 7
    default = seed("query", "bibliographic-coupling", "-f", "csv")
    loose = seed("query", "bibliographic-coupling", "-p", "min-shared=1", "-p", "max-citing=50", "-f", "csv")
    none = seed("query", "bibliographic-coupling", "-p", "max-citing=1", "-f", "csv")
    assert default.exit_code == loose.exit_code == none.exit_code == 0
    rows = lambda r: r.stdout.splitlines()[1:]  # noqa: E731
    assert len(rows(default)) == 19 and len(rows(loose)) == 21
    assert set(rows(default)) < set(rows(loose))
    assert {r.split(",")[2] for r in rows(loose)} - {r.split(",")[2] for r in rows(default)} == {"1"}
    assert rows(none) == []


def test_rdflib_holds_the_union_graph_rdflib_itself_parses(seed: Seed) -> None:
    """``--engine rdflib`` loads the N-Quads as one union graph, parsed by Oxigraph with one object per
    distinct term: the very triples rdflib's own N-Quads parser gives as the union of the graphs."""
    from rdflib import Dataset

    from kg.query.backends import rdflib_graph

    ours = rdflib_graph(seed.graph)
    theirs = Dataset(default_union=True)
    theirs.parse(str(seed.graph), format="nquads")
    triples = set(ours.triples((None, None, None)))
    assert len(triples) == distinct_triples(seed.graph) > 9000
    assert triples == set(theirs.triples((None, None, None)))
    assert list(ours.graphs()) == [ours.default_graph]  # no named graphs
    subjects: dict[str, object] = {}
    for s, _p, _o in triples:
        assert subjects.setdefault(str(s), s) is s  # each term one object (what keeps 20k records in memory)
    lines = seed.graph.read_text(encoding="utf-8").splitlines(keepends=True)
    assert set(rdflib_graph(lines).triples((None, None, None))) == triples


@pytest.mark.parametrize("backend", ["memory", "rdflib", "store"])
def test_local_backends_hold_the_union_without_graph_names(seed: Seed, backends: dict[str, list[str]],
                                                           backend: str) -> None:
    """Every local backend answers over the union as its one default graph: all triples, once each, and no
    named graphs for GRAPH patterns (the same answer on each, so no backend surprises) but, in the store that
    ``kg build --store`` writes, the query layer's index (kg/query/index.py), outside the graph."""
    union = seed.ok("query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "-f", "csv", *backends[backend])
    assert union == f"n\n{distinct_triples(seed.graph)}\n"
    named = seed.ok("query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER (?g != "
                    "<https://w3id.org/crossref-kg/index>) }", "-f", "csv", *backends[backend])
    assert named == "n\n0\n"

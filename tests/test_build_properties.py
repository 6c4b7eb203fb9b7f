"""Every step after normalize is total on what normalize returns: property tests against the whole build.

Hypothesis puts deep, wide and odd JSON (recursive strategies) into the fields of a real record, known and
unknown, and the whole build (read, normalize, resolve, recognise, map, merge, write, validate) runs in process
beside a good real record: it never raises, the fuzzed record is mapped or skipped with one line, the good
record is always there, and the graph conforms to the shapes (a violation would raise ValidationFailed).
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLES, SEEDS
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kg import api
from kg.ingest.normalize import KNOWN_FIELDS

BASES = [json.loads(p.read_text(encoding="utf-8"))["message"]
         for p in [sorted(SEEDS.glob("*.txt"))[-1], SAMPLES / "article_elife.01567.json",
                   SAMPLES / "grant_cpcy.proj.2019.50733_60006578.json", SAMPLES / "inproc_3184558.3186235.json"]]
GOOD = json.loads((SAMPLES / "standard_2640440.json").read_text(encoding="utf-8"))["message"]
NESTED_KEYS = ["date-parts", "date-time", "DOI", "URL", "name", "given", "family", "ORCID", "affiliation", "id",
               "id-type", "key", "unstructured", "year", "start", "end", "award", "value", "type", "amount",
               "award-amount", "project-title", "title", "funder", "delay-in-days", "order", "sequence", "primary"]

ODD = st.sampled_from(["²", "٥٥", "9" * 5000, "rdf:type", "http://x.org/a b", "2024-02-30T00:00:00Z",
                       "10.13039/ 1", "10.٥٥٥٥/x", "200-100", "0000-0002-1825-0097", "x" * 100_000, "zzz", "-4"])
scalars = (ODD | st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40) | ODD)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(NESTED_KEYS) | st.text(max_size=8), children, max_size=5),
    max_leaves=40,
)


def nest(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"date-parts": value}
    return value


@st.composite
def fuzzed_record(draw: st.DrawFn) -> dict[str, Any]:
    raw = copy.deepcopy(draw(st.sampled_from(BASES)))
    raw["DOI"] = "10.5555/property.1"
    fields = sorted(KNOWN_FIELDS - {"DOI"}) + ["unknown-field"]
    for name in draw(st.lists(st.sampled_from(fields), min_size=1, max_size=6, unique=True)):
        raw[name] = draw(json_values | st.builds(nest, st.integers(1, 150)))
    return raw


def _with(**fields: Any) -> dict[str, Any]:
    raw = copy.deepcopy(BASES[1])
    raw["DOI"] = "10.5555/property.1"
    raw.update({k.replace("_", "-"): v for k, v in fields.items()})
    return raw


SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example])


def check_whole_build(raw: dict[str, Any]) -> None:
    saved = {k: os.environ.get(k) for k in ("KG_HOME", "KG_SHACL_ENGINE")}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["KG_HOME"] = str(Path(tmp) / "ws")
        os.environ["KG_SHACL_ENGINE"] = "fast"  # (both engines agree: tests/test_validate_core.py)
        try:
            (Path(tmp) / "fuzzed.json").write_text(json.dumps(raw), encoding="utf-8")
            (Path(tmp) / "good.json").write_text(json.dumps(GOOD), encoding="utf-8")
            problems: list[str] = []
            built, report = api.build([str(Path(tmp) / "fuzzed.json"), str(Path(tmp) / "good.json")],
                                      api.BuildOptions(validation="full", jobs=1,
                                                       on_problem=lambda level, line: problems.append(line)))
            assert all("\n" not in p and "\r" not in p for p in problems), problems
            assert built.report.records + built.report.skipped == 2
            assert report is not None and report.count("Violation") == 0
            graph = (Path(tmp) / "ws" / "graph.nq").read_text(encoding="utf-8")
            assert f"<https://doi.org/{GOOD['DOI'].lower()}> " in graph
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@settings(max_examples=20, **SETTINGS)
@given(fuzzed_record())
@example(_with(reference_count="²"))
@example(_with(type=17, page="200-100", created={"date-time": "2024-02-30T00:00:00Z"}))
@example(_with(funder=[{"name": "F", "DOI": "10.5555/x y"}], ISSN=["٢٠٥٠-084X"], issued={"date-parts": [["9" * 5000]]}))
def test_whole_build_is_total_on_odd_field_values(raw: dict[str, Any]) -> None:
    check_whole_build(raw)


@pytest.mark.slow
@settings(max_examples=400, **SETTINGS)
@given(fuzzed_record())
def test_whole_build_is_total_on_odd_field_values_many(raw: dict[str, Any]) -> None:
    check_whole_build(raw)

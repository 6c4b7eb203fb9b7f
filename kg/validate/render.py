"""The validation report as text, JSON or Turtle, its summary words, and the one line a build that meets
violations ends with."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

import orjson

from ..rdf.ids import Minter
from ..rdf.nquads import graph_of, subject_of
from ..rdf.terms import iri
from .report import RANK, SEVERITIES, Result, ValidationReport


def short(iri: str | None) -> str:
    from ..rdf.vocab import Prefixer
    if iri is None:
        return ""
    return Prefixer().curie(iri) or iri


def render_text(report: ValidationReport, threshold: str) -> str:
    shown = report.at_or_above(threshold)
    lines = []
    by_shape: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for r in shown:
        by_shape[(r.severity, r.shape)].append(r)
    for (severity, shape), results in by_shape.items():
        lines.append(f"{severity} {short(shape)}: {len(results)} result{'s' if len(results) != 1 else ''}")
        by_focus: dict[str, list[Result]] = defaultdict(list)
        for r in results:
            by_focus[r.focus].append(r)
        for focus, rs in by_focus.items():
            lines.append(f"  {focus}")
            for r in rs:
                lines.append(f"    {_line(r)}")
                lines.extend(_details(r, 1))
    lines.append(f"{summary(report)} (showing {threshold} and above{_hidden(report, threshold)})")
    return "\n".join(lines) + "\n"


def _line(r: Result) -> str:
    where = f"{short(r.path)}" if r.path else "(node)"
    value = f" = {r.value!r}" if r.value is not None else ""
    return f"{where}{value}: {r.message}"


def _details(r: Result, depth: int) -> list[str]:
    """The lines of a result's details (sh:detail), indented under it: each with its own focus node."""
    out = []
    for d in r.details:
        out.append(f"    {'  ' * depth}detail {d.focus}: {_line(d)}")
        out.extend(_details(d, depth + 1))
    return out


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def summary(report: ValidationReport) -> str:
    """"conforms" (no result of any severity, as SHACL's sh:conforms) or "does not conform", and the counts:
    the words ``kg validate`` and ``kg build`` both use."""
    counts = Counter(r.severity for r in report.results)
    return (f"{'conforms' if report.conforms else 'does not conform'}: {_n(counts['Violation'], 'violation')}, "
            f"{_n(counts['Warning'], 'warning')}, {_n(counts['Info'], 'info')}")


def see_all(report: ValidationReport, threshold: str = "violation") -> str:
    """The --severity that shows every result the report counts ("" when ``threshold`` already does)."""
    lowest = max((RANK.get(SEVERITIES.get(r.severity.lower()), 2) for r in report.results), default=0)
    wanted = ["violation", "warning", "info"][lowest]
    return "" if ["violation", "warning", "info"].index(threshold) >= lowest else wanted


def _hidden(report: ValidationReport, threshold: str) -> str:
    """What the counts hold that the report does not show, and how to see it."""
    wanted = see_all(report, threshold)
    if not wanted:
        return ""
    hidden = len(report.results) - len(report.at_or_above(threshold))
    return f"; {hidden} not shown: use --severity {wanted}"


def render_json(report: ValidationReport, threshold: str) -> str:
    counts = Counter(r.severity for r in report.results)
    doc = {
        "conforms": report.conforms,
        "counts": {"violation": counts["Violation"], "warning": counts["Warning"], "info": counts["Info"]},
        "results": [_json(r) for r in report.at_or_above(threshold)],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"


def _json(r: Result) -> dict:
    """One result as JSON; ``details`` (sh:detail) only when it has some."""
    doc: dict = {"severity": r.severity, "shape": r.shape, "focus": r.focus, "path": r.path, "value": r.value,
                 "message": r.message, "constraint": r.constraint}
    if r.details:
        doc["details"] = [_json(d) for d in r.details]
    return doc


def render_turtle(report: ValidationReport) -> str:
    return report.graph.serialize(format="turtle")


def violating_records(report: ValidationReport, lines: Iterable[str] | None, base: str) -> list[str]:
    """The DOIs of the records whose named graphs hold a focus node of a violation (sorted): the graph
    ``{base}graph/{doi}`` of each quad whose subject is such a node, else, without the lines, the DOI of a focus
    node that is a work (``https://doi.org/{doi}``)."""
    from urllib.parse import unquote

    focus = {r.focus for r in report.results if r.severity == "Violation"}
    dois: set[str] = set()
    prefix = "<" + base + "graph/"
    shared = Minter(base).shared_graphs()
    if lines is not None:
        tokens = {"<" + f + ">" for f in focus}
        for line in lines:
            if subject_of(line) in tokens:
                g = graph_of(line)
                if g.startswith(prefix) and g not in shared:
                    dois.add(unquote(g[len(prefix):-1]))
    for f in focus:
        if (doi := Minter.doi_of(iri(f))) is not None:
            dois.add(unquote(doi))
    return sorted(dois)


def violation_message(report: ValidationReport, lines: Iterable[str] | None, base: str, limit: int = 5) -> str:
    """The one line a build that meets violations ends with: how many, the first, the records that have them,
    and what to do (the records' data is caught in normalize, so what remains is a mapping bug)."""
    n = report.count("Violation")
    first = next(r for r in report.results if r.severity == "Violation")
    dois = violating_records(report, lines, base)
    named = ", ".join(dois[:limit]) + (f" and {len(dois) - limit} more" if len(dois) > limit else "")
    where = f" in {len(dois)} record{'s' if len(dois) != 1 else ''} ({named})" if dois else ""
    return (f"the graph has {n} violation{'s' if n != 1 else ''} (first: {first.focus}: {first.message}){where};"
            " nothing was written; this is a mapping bug (or a shape of --shapes), not a problem of the records:"
            " please report it; to list every violation, run the build again with --allow-invalid, then"
            " 'kg validate'")

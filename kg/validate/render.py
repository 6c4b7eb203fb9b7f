"""The validation report as text, JSON or Turtle, its summary words, and the one line a build that meets
violations ends with."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Iterable

import orjson

from ..infra.text import printable
from ..rdf.ids import DOI_RESOLVER, Minter
from ..rdf.nquads import graph_of, subject_of
from ..rdf.terms import iri
from .report import NAMES, RANK, SEVERITIES, Result, ValidationReport
from .words import KGSH, NO_WORDS, FocusNode, Group, Words, grouped


def short(iri: str | None) -> str:
    """An IRI as a CURIE (``frapo:hasORCID``, ``kgsh:PersonShape``) where a prefix fits, else whole."""
    from ..rdf.vocab import Prefixer
    if iri is None:
        return ""
    if iri.startswith(KGSH) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", iri[len(KGSH):]):
        return "kgsh:" + iri[len(KGSH):]
    return Prefixer().curie(iri) or iri


SHOWN_LINES = 20  # node lines of a group shown before "... and N more"
LEVELS = (("Violation", "violation"), ("Warning", "warning"), ("Info", "info"))


def render_text(report: ValidationReport, threshold: str, words: Words = NO_WORDS, width: int | None = None) -> str:
    """The results at or above ``threshold`` grouped by shape and what they count, each group with its message
    and its nodes by name (in their records), then the summary line; lines wrapped at ``width`` when given. The
    graph's and the shapes' values are shown without control characters (``printable``): a label cannot clear
    the screen."""
    lines = []
    for group in grouped(report.at_or_above(threshold), words):
        lines.extend(_group(group, report.nodes, words, width))
    lines.extend(_wrap(summary(report, words) + _hidden(report, threshold), width, "", "  "))
    return "\n".join(lines) + "\n"


def _group(group: Group, nodes: dict[str, FocusNode], words: Words, width: int | None) -> list[str]:
    """``Warning kgsh:PersonShape frapo:hasORCID: 3 persons without an ORCID iD``, the message, and the nodes:
    by record, names only, when the results differ in nothing else; else one result a line."""
    rs = group.results
    where = short(group.shape) + (f" {short(group.path)}" if group.path else "")
    out = [printable(f"{group.severity} {where}: {words.phrase(rs[0], len(rs), where=False)}")]
    same = len({r.message for r in rs}) == 1
    if same:
        out.extend(_wrap(rs[0].message, width, "  ", "  "))
    body: list[tuple[list[str], int]] = []  # (lines, results they show)
    if same and len({r.value for r in rs}) == 1 and not any(r.details for r in rs):  # (the message says the value)
        by_record: dict[str | None, list[str]] = {}
        for r in rs:
            node = nodes.get(r.focus, FocusNode())
            labels = by_record.setdefault(node.record, [])
            if node.label is not None or r.focus != f"{DOI_RESOLVER}{node.record}":  # (not the record's work)
                labels.append(_label(r.focus, node, with_record=False))
        for record, labels in by_record.items():
            text = ": ".join(x for x in (record or "", ", ".join(labels)) if x)
            body.append((_wrap(text, width, "  ", "    "), max(len(labels), 1)))
    else:
        for r in rs:
            node = nodes.get(r.focus, FocusNode())
            value = f" = {r.value!r}" if r.value is not None else ""
            text = _label(r.focus, node, with_record=True) + value + ("" if same else f": {printable(r.message)}")
            body.append((_wrap(text, width, "  ", "    ") + _details(r, 1), 1))
    out.extend(line for lines, _ in body[:SHOWN_LINES] for line in lines)
    if rest := sum(n for _, n in body[SHOWN_LINES:]):
        out.append(f"  ... and {rest} more; -f json lists every result")
    return out


def _label(focus: str, node: FocusNode, with_record: bool) -> str:
    """A focus node by its name or title (``Mao Lin``), else its IRI, short; ``with_record``: and its record."""
    if node.label is None:
        return printable(short(focus))
    return printable(node.label) + (f" ({node.record})" if with_record and node.record else "")


def _wrap(text: str, width: int | None, first: str, rest: str) -> list[str]:
    text = printable(text)
    if width is None:
        return [first + text]
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first]


def _line(r: Result) -> str:
    where = f"{short(r.path)}" if r.path else "(node)"
    value = f" = {r.value!r}" if r.value is not None else ""
    return f"{where}{value}: {r.message}"


def _details(r: Result, depth: int) -> list[str]:
    """The lines of a result's details (sh:detail), indented under it: each with its own focus node."""
    out = []
    for d in r.details:
        out.append(printable(f"  {'  ' * depth}detail {d.focus}: {_line(d)}"))
        out.extend(_details(d, depth + 1))
    return out


def summary(report: ValidationReport, words: Words = NO_WORDS) -> str:
    """The verdict in plain words, the line ``kg validate`` and ``kg build`` both end with: ``valid: no
    violations (3 warnings: 3 persons without an ORCID iD)``, or ``invalid: 1 violation: ...; 3 warnings: ...``.
    (Valid: no violation. SHACL's sh:conforms, in the Turtle and JSON reports, is false on any result.)"""
    parts = []
    for severity, word in LEVELS:
        rs = [r for r in report.results if r.severity == severity]
        if rs:
            counts: dict[str, int] = {}
            firsts: dict[str, Result] = {}
            for g in grouped(rs, words):
                key = words.phrase(g.results[0], 1)
                counts[key] = counts.get(key, 0) + len(g.results)
                firsts.setdefault(key, g.results[0])
            what = ", ".join(words.phrase(firsts[k], n) for k, n in counts.items())
            parts.append(f"{_n(len(rs), word)}: {what}")
    others = [r for r in report.results if r.severity not in NAMES.values()]
    if others:
        parts.append(_n(len(others), "result") + " of other severities")
    if report.count("Violation"):
        return "invalid: " + "; ".join(parts)
    return "valid: no violations" + (f" ({'; '.join(parts)})" if parts else ", no warnings")


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def see_all(report: ValidationReport, threshold: str = "violation") -> str:
    """The --severity that shows every result the report counts ("" when ``threshold`` already does)."""
    lowest = max((RANK.get(SEVERITIES.get(r.severity.lower()), 2) for r in report.results), default=0)
    wanted = ["violation", "warning", "info"][lowest]
    return "" if ["violation", "warning", "info"].index(threshold) >= lowest else wanted


def _hidden(report: ValidationReport, threshold: str) -> str:
    """How to see what the summary counts and the report does not show."""
    wanted = see_all(report, threshold)
    return f"; --severity {wanted} lists them" if wanted else ""


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

"""What the commands end with: every closing line and rendered summary, made from the plain values kg.api returns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..fetch import MISSING_FILE, MISSING_NAMED, Client
from ..infra.text import plural
from ..query.catalogue import described
from ..query.stored import StoredQuery
from ..rdf.ids import DOI_RESOLVER
from ..validate import ValidationReport, render_json, render_text, render_turtle, see_all, shape_words, summary
from ..validate.words import NO_WORDS

if TYPE_CHECKING:  # (names for the type hints only: the report's modules are not read at start-up)
    from ..api import Fetched
    from ..pipeline.run import Built
    from ..report import Written

FETCH_COUNTS = ("fetched", "cached", "missing", "failed")  # the counts of a fetch, in the order shown
ARXIV_DOI = DOI_RESOLVER + "10.48550/arxiv."  # DataCite's arXiv DOIs: Crossref holds no record of them


def build_summary(built: Built, validation: ValidationReport | None, seconds: float, output: str | None = None,
                  shapes: Path | None = None) -> str:
    """``built 4 works from 5 records (1 skipped, 1 merged, 0 warnings): 580 triples in 0.41 s -> .kg/graph.nq``
    and, when the graph was validated, ``validation: valid: no violations (3 warnings: ...)`` on a second line
    (``shapes``: the folder of the shapes that say what their results count)."""
    r = built.report
    to = f"{built.graph}" + (f", {output}" if output and output != "-" else "")
    text = (f"built {plural(r.records - r.merged, 'work')} from {plural(r.records, 'record')} ({r.skipped} "
            f"skipped, {r.merged} merged, {plural(len(r.warnings), 'warning')}): {built.triples} triples "
            f"in {seconds:.2f} s -> {to}")
    if validation is None:
        return text
    verdict = summary(validation, shape_words(shapes) if validation.results else NO_WORDS)
    hint = f"kg validate --severity {see_all(validation) or 'violation'} lists them"
    return text + f"\nvalidation: {verdict}" + ("" if not validation.results else f"; {hint}")


def timings_line(built: Built) -> str:
    """``timings: read 0.10 s, map 0.20 s, ...``: the wall seconds of each stage of a build."""
    return "timings: " + ", ".join(f"{stage} {sec:.2f} s" for stage, sec in built.report.stages.items())


def render_validation(report: ValidationReport, fmt: str, severity: str, shapes: Path | None = None,
                      width: int | None = None) -> str:
    """A validation report as text (grouped, in plain words, wrapped at ``width``), JSON (results at or above
    ``severity``) or Turtle (the report graph); ``shapes``: the folder of the shapes validated against."""
    if fmt == "json":
        return render_json(report, severity)
    if fmt == "turtle":
        return render_turtle(report)
    return render_text(report, severity, shape_words(shapes) if report.results else NO_WORDS, width)


def fetch_summary(done: Fetched) -> str:
    """``fetched 2, cached 1, missing 0, failed 0 DOIs in 1.2 s -> fetched/``, the rate line, then the DOIs not in
    Crossref and what was left out, one a line."""
    r, folder = done.report, f"{done.report.out_dir}/"
    lines = [", ".join(f"{c} {getattr(r, c)}" for c in FETCH_COUNTS) + f" DOIs in {r.seconds:.1f} s -> {folder}",
             rate_line(done.client)]
    named = sorted(r.missing_dois)[:MISSING_NAMED]
    lines += [f"missing: {doi}: not in Crossref" for doi in named]
    if r.missing:
        known = f" ({r.known_missing} known from an earlier run)" if r.known_missing else ""
        if r.missing > len(named):
            known += f" ({r.missing - len(named)} not named above)"
        lines.append(f"note: {plural(r.missing, 'DOI')} not in Crossref{known}, listed in "
                     f"{folder}{MISSING_FILE}; --refresh asks again")
    if r.over_max:
        more = f"{plural(r.over_max, 'more DOI', 'more DOIs')} {'was' if r.over_max == 1 else 'were'} not fetched"
        lines.append(f"note: --max {done.max_dois} reached; {more}; raise --max to fetch them")
    return "\n".join(lines)


def rate_line(client: Client) -> str:
    """How the rate limiter behaved: the pace in force, waits for a turn, pauses on Retry-After, retries."""
    lim = client.limiter
    origin = "from the server's X-Rate-Limit headers" if lim.source == "server" else "default"
    return (f"rate limit: {lim.limit} requests per {lim.interval:g} s ({origin}); {plural(lim.waits, 'request')}"
            f" waited for a turn (longest {lim.longest:.1f} s); paused {plural(lim.pauses, 'time')} "
            f"({lim.paused:.1f} s) on 429/503 Retry-After; {plural(client.retried, 'retry', 'retries')}")


def untitled_line(dois: list[str], fetch_command: str) -> str:
    """The line a table of a stored query ends with when cited works in it have no title, only a DOI: how many,
    and ``fetch_command`` (``kg.workspace.fetch_command``), which fetches their Crossref records and builds again."""
    what = f"{plural(len(dois), 'cited work')} here {'has' if len(dois) == 1 else 'have'} no title, only a DOI"
    if arxiv := sum(d.startswith(ARXIV_DOI) for d in dois):
        what += (f" ({arxiv} of them {'an arXiv DOI' if arxiv == 1 else 'arXiv DOIs'}, which Crossref does not "
                 "hold)")
    return f"note: {what}; their Crossref records fill the titles in: {fetch_command}"


def queries_json(queries: list[StoredQuery]) -> str:
    """``kg queries -f json``: a JSON array of what each stored query takes and returns."""
    return orjson.dumps([described(q) for q in queries], option=orjson.OPT_INDENT_2).decode()


def report_line(done: Written, graphs_dir: Path | None) -> str:
    """``wrote report.html (12,345 bytes, 6 works)`` and the network files: the line ``kg report`` ends with."""
    return (f"wrote {done.output} ({done.bytes:,} bytes, {done.works:,} works)"
            + (f" and {len(done.graphs)} network files in {graphs_dir}" if done.graphs else ""))

"""Everything the CLI may call: build, export, query (and the workspace they share)."""

from __future__ import annotations

import os
import shlex
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from . import export
from . import fetch as fetching
from .errors import InputError, KgError, UsageError, ValidationFailed
from .infra import faults, outputs
from .infra.location import Location
from .infra.net import DEFAULT_MAX_BYTES
from .infra.parts import FORMAT as PARTS_FORMAT
from .infra.parts import POINTER
from .infra.parts import VERSION as PARTS_VERSION
from .infra.parts import commit as commit_parts
from .infra.parts import exists as parts_exist
from .infra.parts import is_folder as parts_folder
from .infra.parts import lines as parts_lines
from .infra.text import plural
from .infra.workers import Forked, forking_works
from .ingest.read import display_path, spool
from .map.context import ContextSpec
from .pipeline.memory import Report as BuildReport
from .pipeline.stream import build_stream, scratch_dir
from .pipeline.tuning import Tuning
from .query import run
from .query.backends import build_disk_store
from .query.results import Answer, Cell, Results
from .query.run import QuerySource
from .rdf.ids import DEFAULT_BASE, DOI_RESOLVER
from .rdf.nquads import canonical_lines, count_triples, is_canonical, read_graph_lines
from .validate import Report, in_shards, validate_collected, validate_file

# isort: split
# what the CLI shows and offers, named here so that it needs kg.api alone: the export formats, the results
# renderer and the width it fits, the stored queries, the default inputs and the default API URL of kg fetch
from .export import FORMATS  # noqa: F401
from .fetch import DEFAULT_API_URL  # noqa: F401
from .query.catalogue import describe_text as describe_query  # noqa: F401
from .query.catalogue import listing as list_queries  # noqa: F401
from .query.output import FORMATS as RESULT_FORMATS  # noqa: F401
from .query.output import PAGE, answer_format, on_terminal, render, terminal_width  # noqa: F401
from .query.output import write as write_answer  # noqa: F401
from .query.stored import find_query, stored_queries  # noqa: F401
from .resources import seeds_dir  # noqa: F401

WORKSPACE_ENV = "KG_HOME"
AUTO_SAMPLE = 1000  # --validate auto: the whole graph up to this many records, else a sample of this size


def workspace() -> Path:
    """The workspace folder: $KG_HOME, else .kg/ in the current directory."""
    return Path(os.environ.get(WORKSPACE_ENV) or ".kg")


def workspace_source() -> Path | str:
    """The workspace's graph: its ``graph.nq``, or the parts folder a cluster build wrote (``kg.infra.parts``; a
    path, or a URL)."""
    from .infra.parts import workspace_graph as named
    return named(workspace())


def workspace_graph() -> Path:
    """The workspace's graph on this machine: ``workspace_source`` unless that is a URL (an error then)."""
    src = workspace_source()
    if isinstance(src, str):
        raise KgError(f"{src}: the workspace graph is a parts folder at a URL; read it with kg query or kg export, "
                      "or copy it here and pass its folder")
    return src


@dataclass
class Built:
    """What ``build`` did: the build report, counts, and the workspace graph it wrote."""

    report: BuildReport
    works: int
    quads: int
    triples: int
    graph: Path | str  # the workspace graph, or the parts folder (a path or a URL) of a cluster build


@dataclass(frozen=True)
class BuildSummary:
    """The sentence ``kg build`` ends with (and the validation line): what was built, in how long, where."""

    built: Built
    validation: Report | None
    seconds: float
    output: str | None = None

    def render(self) -> str:
        """``built 4 works from 5 records (1 skipped, 1 merged, 0 warnings): 580 triples in 0.41 s -> .kg/graph.nq``
        and, when the graph was validated, ``validation: ...`` on a second line."""
        r = self.built.report
        to = f"{self.built.graph}" + (f", {self.output}" if self.output and self.output != "-" else "")
        text = (f"built {plural(r.records - r.merged, 'work')} from {plural(r.records, 'record')} ({r.skipped} "
                f"skipped, {r.merged} merged, {plural(len(r.warnings), 'warning')}): {self.built.triples} triples "
                f"in {self.seconds:.2f} s -> {to}")
        if self.validation is None:
            return text
        from .validate import see_all, summary
        hint = f" --severity {see_all(self.validation)}" if see_all(self.validation) else ""
        return (text + f"\nvalidation: {summary(self.validation)}"
                + ("" if self.validation.conforms else f" (kg validate{hint} lists them)"))


def _sample_size(validation: str) -> int | None:
    """Records to validate: None for every record, else the sample size."""
    if validation in ("full", "none"):
        return None
    if validation == "auto":
        return AUTO_SAMPLE
    if validation.startswith("sample:") and validation[7:].isdigit() and int(validation[7:]) > 0:
        return int(validation[7:])
    raise UsageError(f"--validate {validation!r}: use auto, full, sample:N or none")


def default_jobs() -> int:
    """The available cores (the scheduler's affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def build(inputs: list[str], output: str | None = None, fmt: str | None = None, base: str = DEFAULT_BASE,
          strict: bool = False, on_problem: Callable[[str, str], None] | None = None,
          tools: list[Path] | None = None, topics: Path | None = None, validation: str = "auto",
          allow_invalid: bool = False, shapes: Path | None = None,
          store: Path | None = None, jobs: int | None = None,
          on_progress: Callable[..., None] | None = None, tuning: Tuning = Tuning(), cluster: str | None = None,
          parts: Path | str | None = None, on_tasks: Callable[[str, int, int], None] | None = None,
          scratch: Path | str | None = None) -> tuple[Built, Report | None]:
    """Build the graph of ``inputs`` in a stream, validate it, and write the workspace graph and, if
    asked, an export and the on-disk store.

    ``validation`` is auto (whole graph up to 1,000 records, else a deterministic sample of 1,000
    records), full, sample:N or none. A graph with violations is not written unless ``allow_invalid``.
    ``jobs``: worker processes (default: the available cores); the output never depends on it.
    Every output is checked before the build starts and all are replaced together at its end (see
    ``kg.infra.outputs.Outputs``): an interruption (``Interrupted``) or a failure leaves all of them as they were.
    An input that cannot be read twice (``-`` for standard input, a pipe) is copied once to the scratch folder.
    ``tuning``: chunk, merge and shard sizes (how the build runs, never what it writes).
    ``cluster``: run the build on Dask (``local:N`` or a scheduler address, see ``kg.pipeline.cluster``) and write
    the graph as a parts folder (``parts``, a path or an fsspec URL, default: parts/ in the workspace;
    ``kg.infra.parts``) that the workspace then refers to; ``scratch``: where its tasks pass on their tables (a
    path or URL every worker reaches; default: the workspace's scratch folder); ``on_tasks(stage, done, total)``
    hears of its tasks.
    ``on_progress(stage, done, total=None, unit="records")`` is told how each stage goes: read, resolved, map
    (records), merge (lines written), validate (shards done of shards), export (triples), store (lines).
    """
    spec = ContextSpec(base, tuple(tools) if tools is not None else None, topics)
    spec.create()  # bad base, catalogue or overrides: fail before reading
    out_fmt = export.resolve_format(fmt, output) if output else None
    sample = _sample_size(validation)
    plan = outputs.Outputs(workspace(), workspace() / "graph.nq", output, store)
    try:
        with plan:
            if cluster is None:
                return _build(plan, inputs, out_fmt, spec, strict, on_problem, validation, sample,
                              allow_invalid, shapes, jobs, on_progress, tuning)
            from .pipeline.cluster import DaskEngine
            options = {"base": base, "validation": validation, "cluster": cluster}
            with DaskEngine(cluster, on_tasks) as engine:
                return _build_cluster(plan, inputs, out_fmt, spec, strict, on_problem, validation, sample,
                                      allow_invalid, shapes, jobs, on_progress, tuning,
                                      (engine, Location(parts or workspace() / "parts"), scratch, options))
    except KeyboardInterrupt:
        raise Interrupted(plan.committed) from None


class Interrupted(KgError):
    """Ctrl-C (or SIGTERM) during a build; the message says whether the outputs are all old or all new."""

    exit_code = 130

    def __init__(self, committed: bool) -> None:
        self.committed = committed
        super().__init__("interrupted after every output was written; the workspace graph and the outputs are "
                         "all new" if committed else
                         "interrupted; the workspace graph and the outputs are as they were; run the build again")


INPUTS_FILE = "inputs.json"  # in the workspace: the inputs of the build that wrote its graph


def _lead_notes(report: BuildReport, plan: outputs.Outputs, note: str | None) -> bool:
    """Put a build's leading notes (a rolled-forward build, its inputs') first; False when it read no record."""
    if plan.rolled_forward:
        report.notes.insert(0, f"{plan.workspace}: a build was killed while putting its outputs in "
                               "place; its renames were finished first, so its outputs were all new")
    if report.records == 0:
        return False
    if note:
        report.notes.insert(0, note)
    return True


def _inputs_note(plan: outputs.Outputs, inputs: list[str]) -> tuple[str | None, bytes]:
    """A note when the workspace graph was built from other inputs than ``inputs``, and the record of these."""
    ids = ["stdin" if i == "-" else os.path.abspath(i) for i in inputs]
    given = ["stdin" if i == "-" else display_path(i) for i in inputs]
    mine = orjson.dumps({"inputs": ids, "given": given}, option=orjson.OPT_INDENT_2)
    try:
        last = orjson.loads((plan.workspace / INPUTS_FILE).read_bytes())
        before, given = list(last["inputs"]), [str(g) for g in last["given"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None, mine + b"\n"
    if sorted(before) == sorted(ids) or not plan.graph.path or not plan.graph.path.exists():
        return None, mine + b"\n"
    shown = ", ".join(given[:3]) + (f" and {len(given) - 3} more" if len(given) > 3 else "")
    return (f"{plan.graph.shown}: was built from other inputs ({shown}); this build replaces it with the graph "
            "of the inputs given", mine + b"\n")


def _merge(result: Any, fh: IO[bytes], built: Built, every_line: list[str] | None,
           on_progress: Callable[..., None] | None, early: Any) -> tuple[object, ...] | None:
    """Write the merged graph's blocks to ``fh``, counting lines and triples into ``built`` (and gathering the
    lines into ``every_line`` when every line is validated); returns the last report of the early validation."""
    validated: tuple[object, ...] | None = None
    last_triple = None
    for block in result.blocks():
        fh.write(block)
        if not built.quads:
            faults.reached("merge")
        lines = block.split(b"\n")
        lines.pop()  # (empty: the block ends with a line break)
        built.quads += len(lines)
        n, last_triple = count_triples(lines, last_triple)
        built.triples += n
        if every_line is not None:
            every_line.extend(part + "\n" for part in block.decode("utf-8").split("\n")[:-1])
        if on_progress:
            on_progress("merge", built.quads, None, "lines")
            if early is not None:
                latest = early.poll()  # (read as they come, so that the child never waits on the pipe)
                validated = latest[-1] if latest else validated
    return validated


def _build(plan: outputs.Outputs, inputs: list[str], out_fmt: str | None, spec: ContextSpec, strict: bool,
           on_problem: Callable[[str, str], None] | None, validation: str, sample: int | None, allow_invalid: bool,
           shapes: Path | None, jobs: int | None, on_progress: Callable[..., None] | None,
           tuning: Tuning) -> tuple[Built, Report | None]:
    scratch = scratch_dir(workspace())
    try:
        note, manifest = _inputs_note(plan, inputs)
        given = spool(inputs, scratch)
        result = build_stream(given, spec, scratch, jobs=jobs or default_jobs(), strict=strict, sample=sample,
                              on_problem=on_problem, on_progress=on_progress, tuning=tuning)
        built = Built(result.report, result.works, 0, 0, workspace() / "graph.nq")
        if not _lead_notes(result.report, plan, note):
            return built, None
        report = None
        t = time.perf_counter()
        checked = validation != "none"
        sample_lines = result.sample_lines() if checked and result.sample is not None else None
        whole = checked and sample_lines is None  # validate every line: gather them as they are written
        every_line: list[str] = []
        n_jobs = jobs or default_jobs()
        with ExitStack() as stack:
            early = None  # with workers, the sample is validated while the graph is merged
            if sample_lines is not None and n_jobs > 1 and in_shards(len(sample_lines), tuning) and forking_works():
                # the lines reach it in a file, and this process lets go of them: inherited, they would be held
                # twice (touching an object copies its page)
                sample_file = scratch / "sample.nq"
                with open(sample_file, "w", encoding="utf-8", newline="\n") as out:
                    out.writelines(sample_lines)
                sample_lines = None
                result.sampled.clear()
                early = stack.enter_context(Forked(validate_file, sample_file, result.shared_graphs, shapes, n_jobs,
                                                    tuning, reports=on_progress is not None))
            with outputs.opened(plan.graph, binary=True) as fh:  # (a full disk here is the workspace's)
                validated = _merge(result, fh, built, every_line if whole else None, on_progress, early)
            faults.reached("graph")
            _inputs_file(plan, manifest)
            t = result.report.timed("merge", t)
            if validation != "none":
                if early is not None:
                    if on_progress and validated is not None:
                        on_progress(*validated)
                    report = early.result(on_progress)  # (the wait for it, past the merge, is the validate stage)
                else:
                    to_check = every_line if whole else sample_lines
                    assert to_check is not None  # not handed to a worker: the sample is kept, or every line
                    report = validate_collected(to_check, result.shared_graphs, shapes, n_jobs, tuning,
                                                on_progress)
                t = result.report.timed("validate", t)
                faults.reached("validate")
                if report.count("Violation") and not allow_invalid:
                    from .rdf.ids import check_base
                    from .validate import violation_message
                    raise ValidationFailed(violation_message(report, every_line if whole else sample_lines,
                                                             check_base(spec.base)), report)
        graph_tmp = plan.graph.tmp
        assert graph_tmp is not None
        if plan.output is not None and out_fmt:
            if on_progress:
                on_progress("export", built.triples, None, "triples")
            with plan.writing(plan.output) as fh:
                export.WRITERS[out_fmt](canonical_lines(graph_tmp), fh)
            faults.reached("export")
            t = result.report.timed("export", t)
        if plan.store is not None and plan.store_building is not None:
            if on_progress:
                on_progress("store", built.quads, None, "lines")
            _store(plan, canonical_lines(graph_tmp), scratch)
            result.report.timed("store", t)
        faults.reached("commit")
        plan.commit()
        pointer = plan.workspace / POINTER
        if pointer.exists():
            pointer.unlink()  # (the workspace graph is graph.nq again)
        faults.reached("committed")
        return built, report
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _inputs_file(plan: outputs.Outputs, manifest: bytes) -> None:
    """The record of the build's inputs, committed with the workspace graph."""
    inputs_file = outputs.Target(str(plan.workspace / INPUTS_FILE), plan.workspace / INPUTS_FILE, False, False)
    with outputs.opened(inputs_file, binary=True) as fh:
        fh.write(manifest)
    plan.extra.append(inputs_file)


def _build_cluster(plan: outputs.Outputs, inputs: list[str], out_fmt: str | None, spec: ContextSpec, strict: bool,
                   on_problem: Callable[[str, str], None] | None, validation: str, sample: int | None,
                   allow_invalid: bool, shapes: Path | None, jobs: int | None,
                   on_progress: Callable[..., None] | None, tuning: Tuning,
                   cluster: tuple[Any, Location, Path | str | None, dict[str, str]]) -> tuple[Built, Report | None]:
    """``_build`` on Dask: the parts are written by the workers into a temporary folder beside the parts folder,
    which is validated, exported and loaded from there, then put in place with its manifest, written last."""
    engine, folder, scratch_at, options = cluster
    scratch = scratch_dir(workspace())
    work = Location(scratch_at).child(f"kg-build-{outputs._tag()}") if scratch_at else Location(scratch / "tasks")
    if not folder.url:
        outputs.remove_dead(Path(folder.where).parent, f".{folder.name}.")
    tmp = folder.sibling(f".{folder.name}.building-{outputs._tag()}")
    try:
        note, manifest = _inputs_note(plan, inputs)
        given = spool(inputs, scratch, urls=False)
        work.make()
        result = engine.build(given, spec, tuning, work, tmp, strict, on_problem, sample, on_progress)
        built = Built(result.report, result.works, result.lines, result.triples, folder.local or folder.where)
        if not _lead_notes(result.report, plan, note):
            return built, None
        faults.reached("graph")
        t = time.perf_counter()
        report = None
        if validation != "none":
            lines = result.sample_lines() if result.sample is not None else list(result.graph_lines(tmp))
            report = validate_collected(lines, result.shared_graphs, shapes, jobs or default_jobs(), tuning,
                                        on_progress)
            t = result.report.timed("validate", t)
            faults.reached("validate")
            if report.count("Violation") and not allow_invalid:
                from .rdf.ids import check_base
                from .validate import violation_message
                raise ValidationFailed(violation_message(report, lines, check_base(spec.base)), report)
        _inputs_file(plan, manifest)
        if plan.output is not None and out_fmt:
            if on_progress:
                on_progress("export", built.triples, None, "triples")
            with plan.writing(plan.output) as fh:
                export.WRITERS[out_fmt](result.graph_lines(tmp), fh)
            faults.reached("export")
            t = result.report.timed("export", t)
        if plan.store is not None and plan.store_building is not None:
            if on_progress:
                on_progress("store", built.quads, None, "lines")
            _store(plan, result.graph_lines(tmp), scratch)
            result.report.timed("store", t)
        pointer = plan.workspace / POINTER
        stats = engine.stats
        commit_parts(tmp, folder, {
            "format": PARTS_FORMAT, "version": PARTS_VERSION, "parts": result.parts, "lines": result.lines,
            "triples": result.triples, "inputs": [display_path(i) for i in inputs], "options": options,
            "records": result.report.records, "works": result.works, "partitions": result.partitions,
            "workers": dict(sorted(stats.workers.items())), "worker_peak_kib": dict(sorted(stats.peak_kib.items())),
            "bytes_written": dict(sorted(stats.written.items())), "stage_seconds": stats.seconds,
            "stage_cpu_seconds": stats.cpu, "task_cpu_seconds": dict(sorted(stats.task_cpu.items()))})
        named = outputs.Target(str(pointer), pointer, False, False)
        with outputs.opened(named) as fh:
            fh.write((folder.where if folder.url else os.path.abspath(folder.where)) + "\n")
        plan.extra.append(named)
        faults.reached("commit")
        plan.commit()
        faults.reached("committed")
        return built, report
    finally:
        tmp.remove()
        work.remove()
        shutil.rmtree(scratch, ignore_errors=True)


def _store(plan: outputs.Outputs, lines: Iterable[str], scratch: Path) -> None:
    """Build the on-disk store of ``lines`` aside (committed with the other outputs)."""
    assert plan.store is not None and plan.store_building is not None
    try:
        build_disk_store(plan.store_building, lines, scratch)
        faults.reached("store")
    except OSError as e:
        if e.errno in outputs.FULL or "No space" in str(e):
            raise outputs.full_disk(str(plan.store), e) from None
        raise KgError(f"{plan.store}: the store could not be built ({e}); nothing was replaced: the "
                      "workspace graph and the outputs are as they were") from None


def validate_graphs(graphs: Sequence[Path | str] | None, shapes: Path | None = None, jobs: int = 1,
                    engine: str | None = None, on_progress: Callable[..., None] | None = None,
                    graph_format: str | None = None) -> "Report":
    """Validate graph files or parts folders (default: the workspace graph; files in ``graph_format`` when given,
    else by their extensions); with ``jobs`` > 1, record by record in parallel. ``on_progress("validate", done,
    total, "shards")`` is told as shards are done."""
    if graph_format is not None and not graphs:
        raise UsageError("--graph-format says the format of the GRAPH files given; name them")
    sources = list(graphs or [workspace_source()])
    lines: set[str] = set()
    prefixes: dict[str, str] = {}
    for src in sources:
        if not parts_exist(src):
            raise InputError(str(src), "does not exist", "run 'kg build' first or name a graph file")
        got = (list(parts_lines(src)) if parts_folder(src)
               else read_graph_lines(Path(src), prefixes, graph_format))
        if not got:
            from .query.backends import no_triples
            raise no_triples(Path(src))  # (a parts folder at a URL holds triples: its manifest says so)
        lines.update(got)
    from . import validate as validation
    return validation.validate_graphs(sorted(lines), shapes, jobs, engine, prefixes, on_progress)


def export_graph(graph: Path | str | None, fmt: str | None, output: str, graph_format: str | None = None) -> None:
    """Convert a graph file or parts folder (default: the workspace graph; a file in ``graph_format`` when given,
    else by its extension) to another format, canonically."""
    if graph_format is not None and graph is None:
        raise UsageError("--graph-format says the format of the GRAPH file given; name it")
    src = graph or workspace_source()
    if not parts_exist(src):
        raise KgError(f"{src}: no graph here; run 'kg build' first or name a graph file")
    if parts_folder(src):  # a partitioned graph: its lines, part after part, are canonical
        export.write(parts_lines(src), export.resolve_format(fmt, output), output)
        return
    src = Path(src)
    named = export.format_named(graph_format) if graph_format else "nquads" if src.suffix == ".nq" else None
    if named == "nquads" and is_canonical(src):
        export.write_file(src, export.resolve_format(fmt, output), output)  # streamed: any size
        return
    lines = read_graph_lines(src, fmt=graph_format)
    export.write(lines, export.resolve_format(fmt, output), output)


PART_BYTES = 1 << 30  # bytes of a graph file per N-Triples part of kg export --parts


def export_parts(graph: Path | str | None, fmt: str | None, folder: Path | str, jobs: int | None = None,
                 ) -> dict[str, Any]:
    """Write a graph (default: the workspace graph; a parts folder, or a canonical N-Quads file) as N-Triples
    parts for bulk loaders into ``folder`` (a path or URL; ``kg.infra.parts.write_triples``), in ``jobs``
    processes (default: the available cores): each triple once across the parts, one part per part of a parts
    folder (per GiB of a file, at least one a job); the manifest."""
    if fmt is None or export.resolve_format(fmt, None) != "nt":
        raise UsageError("--parts writes N-Triples parts for bulk loaders; add -f nt")
    src = graph or workspace_source()
    if not parts_exist(src):
        raise KgError(f"{src}: no graph here; run 'kg build' first or name a graph file")
    from .infra import parts
    jobs = jobs or default_jobs()
    if parts_folder(src):
        pieces = parts.graph_pieces(src)
    elif Path(src).suffix == ".nq" and is_canonical(Path(src)):
        size = Path(src).stat().st_size
        pieces = parts.file_pieces(Path(src), max(jobs, -(-size // PART_BYTES)))
    else:
        raise InputError(str(src), "is not a canonical N-Quads graph (kg build's graph.nq or parts folder)",
                         "export it with kg export -f nquads first, or name the workspace graph")
    return parts.write_triples(pieces, Location(folder), {"source": str(src)}, jobs)


def query(name_or_file: str, params: dict[str, str], graphs: Sequence[Path | str] | None = None,
          text: str | None = None, store: Path | None = None, endpoint: str | None = None,
          engine: str = "oxigraph", allow_remote: bool = False, timeout: float = 60.0,
          max_bytes: int = DEFAULT_MAX_BYTES, limit: int | None = None, offset: int | None = None,
          default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = (),
          on_text: Callable[[str], None] | None = None, graph_format: str | None = None) -> Results:
    """Run a stored query (or SPARQL ``text``) on one source, whole (``kg.query.run.query``)."""
    return answer(name_or_file, params, graphs, text, store, endpoint, engine, allow_remote, timeout, max_bytes,
                  limit, offset, default_graphs, named_graphs, on_text, graph_format).results()


def answer(name_or_file: str, params: dict[str, str], graphs: Sequence[Path | str] | None = None,
           text: str | None = None, store: Path | None = None, endpoint: str | None = None,
           engine: str = "oxigraph", allow_remote: bool = False, timeout: float = 60.0,
           max_bytes: int = DEFAULT_MAX_BYTES, limit: int | None = None, offset: int | None = None,
           default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = (),
           on_text: Callable[[str], None] | None = None, graph_format: str | None = None,
           page: int | None = None) -> Answer:
    """``query``'s answer as the engine gives it (``kg.query.run.answer``)."""
    on = QuerySource(graphs, store, endpoint, engine, allow_remote, timeout, max_bytes, default_graphs, named_graphs,
                     graph_format, None if graphs or store or endpoint else workspace_source())
    return run.answer(name_or_file, params, on, text, limit, offset, on_text, page)


FETCH_FOLDER = "fetched"  # where 'kg fetch' saves records unless -o
ARXIV_DOI = DOI_RESOLVER + "10.48550/arxiv."  # DataCite's arXiv DOIs: Crossref holds no record of them


def untitled_note(name_or_file: str | None, columns: list[str], rows: list[list[Cell]],
                  on_workspace: bool) -> str | None:
    """The line a table of a stored query ends with when cited works in its ``rows`` have no title, only a DOI
    (its ``#+ untitled:`` columns): how many, and the command that fetches their Crossref records and builds again
    with them (``fetch_command``: the workspace's inputs when the rows came from the workspace graph). None
    otherwise."""
    dois = run.untitled(name_or_file, columns, rows)
    if not dois:
        return None
    what = f"{plural(len(dois), 'cited work')} here {'has' if len(dois) == 1 else 'have'} no title, only a DOI"
    if arxiv := sum(d.startswith(ARXIV_DOI) for d in dois):
        what += (f" ({arxiv} of them {'an arXiv DOI' if arxiv == 1 else 'arXiv DOIs'}, which Crossref does not "
                 "hold)")
    return f"note: {what}; their Crossref records fill the titles in: {fetch_command(on_workspace)}"


def fetch_command(on_workspace: bool = True) -> str:
    """``kg fetch --cited-by ... && kg build ... fetched``: fetch what the inputs of the workspace graph cite, then
    build them again with the records fetched. The inputs are those of the last build (``inputs.json``), as paths
    that work from the current folder; ``INPUTS`` stands for them when they are not known or cannot be read again
    (standard input, a file since removed), or when the graph is not the workspace's."""
    inputs = _last_inputs() if on_workspace else None
    if inputs is None:
        return (f"kg fetch --cited-by INPUTS && kg build INPUTS {FETCH_FOLDER} (INPUTS: the Crossref records the "
                "graph was built from)")
    fetched = os.path.abspath(FETCH_FOLDER)
    cited_by = [p for p in inputs if os.path.abspath(p) != fetched] or inputs
    built = inputs + ([] if any(os.path.abspath(p) == fetched for p in inputs) else [FETCH_FOLDER])
    return ("kg fetch" + "".join(f" --cited-by {shlex.quote(p)}" for p in cited_by) + " && kg build "
            + " ".join(map(shlex.quote, built)))


def _last_inputs() -> list[str] | None:
    """The inputs of the build that wrote the workspace graph, shown relative to the current folder when inside
    it; None when not recorded, or when one of them cannot be read again (standard input, a path since gone)."""
    try:
        paths = [str(p) for p in orjson.loads((workspace() / INPUTS_FILE).read_bytes())["inputs"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not paths or any(p == "stdin" or not os.path.exists(p) for p in paths):
        return None
    here = os.getcwd()
    return [os.path.relpath(p, here) if os.path.commonpath([here, p]) == here else p for p in paths]


def topics() -> Results:
    """The topic scheme (``kg.query.run.topics``)."""
    return run.topics()


def tools(category: str | None = None) -> Results:
    """The tool catalogue, with what the workspace graph cites (``kg.query.run.tools``)."""
    return run.tools(category, workspace_graph())


def stats(graphs: Sequence[Path | str] | None = None, store: Path | None = None, endpoint: str | None = None,
          timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES, default_graphs: tuple[str, ...] = (),
          named_graphs: tuple[str, ...] = ()) -> Results:
    """Counts of works, references, cited works, tools, people and triples (``kg.query.run.stats``)."""
    return run.stats(QuerySource(graphs, store, endpoint, timeout=timeout, max_bytes=max_bytes,
                                 default_graphs=default_graphs, named_graphs=named_graphs,
                                 workspace=None if graphs or store or endpoint else workspace_source()))


def render_validation(report: Report, fmt: str, severity: str) -> str:
    """A validation report as text, JSON (results at or above ``severity``) or Turtle (the report graph)."""
    from .validate import render_json, render_text, render_turtle
    if fmt == "json":
        return render_json(report, severity)
    if fmt == "turtle":
        return render_turtle(report)
    return render_text(report, severity)


FETCH_COUNTS = ("fetched", "cached", "missing", "failed")  # the counts of a fetch, in the order shown


def fetch(dois: Iterable[str], from_files: Iterable[Path], out_dir: Path, *, cited_by: tuple[str, ...] = (),
          depth: int | None = None, max_dois: int = 10_000, mailto: str | None = None,
          api_url: str = DEFAULT_API_URL, refresh: bool = False, jobs: int = 4, timeout: float = 30.0,
          max_bytes: int = DEFAULT_MAX_BYTES, retries: int = 5, backoff: float = 1.0,
          on_outcome: Callable[[fetching.Outcome, fetching.FetchReport], None] | None = None,
          on_problem: Callable[[str, str], None] | None = None) -> FetchSummary:
    """Fetch the Crossref records of ``dois``, of the DOIs in ``from_files`` and of those the records under
    ``cited_by`` cite, up to ``depth`` hops (default: 1 with ``cited_by``, else 0), into ``out_dir`` (see
    ``kg.fetch.fetch_works``). ``on_outcome`` hears of every DOI done, ``on_problem("warning", line)`` of a
    missing contact address before the first request."""
    if cited_by and depth == 0:
        raise UsageError("--depth 0 with --cited-by fetches nothing; use --depth 1 or more")
    targets = fetching.read_dois(dois, from_files)
    if not targets and not cited_by:
        raise UsageError("nothing to fetch: give DOIs, --from-file FILE or --cited-by PATH; see 'kg fetch --help'")
    client = fetching.Client(api_url, mailto, timeout, retries, backoff, max_bytes=max_bytes)
    if not mailto and on_problem:
        on_problem("warning", "no contact address; pass --mailto you@example.org or set CROSSREF_MAILTO so that "
                              "Crossref can reach you (its polite pool)")
    report = fetching.fetch_works(targets, out_dir, client, cited_by=cited_by,
                                  depth=(1 if cited_by else 0) if depth is None else depth, jobs=jobs,
                                  refresh=refresh, max_dois=max_dois, on_outcome=on_outcome)
    return FetchSummary(report, client, max_dois)


@dataclass(frozen=True)
class FetchSummary:
    """What ``fetch`` did, and the lines ``kg fetch`` ends with: counts, the rate limiter, DOIs not in Crossref."""

    report: fetching.FetchReport
    client: fetching.Client
    max_dois: int

    def rate_line(self) -> str:
        """How the rate limiter behaved: the pace in force, waits for a turn, pauses on Retry-After, retries."""
        lim = self.client.limiter
        origin = "from the server's X-Rate-Limit headers" if lim.source == "server" else "default"
        return (f"rate limit: {lim.limit} requests per {lim.interval:g} s ({origin}); {plural(lim.waits, 'request')}"
                f" waited for a turn (longest {lim.longest:.1f} s); paused {plural(lim.pauses, 'time')} "
                f"({lim.paused:.1f} s) on 429/503 Retry-After; {plural(self.client.retried, 'retry', 'retries')}")

    def render(self) -> str:
        """``fetched 2, cached 1, missing 0, failed 0 DOIs in 1.2 s -> fetched/``, the rate line, then the DOIs
        not in Crossref and what was left out, one a line."""
        r, folder = self.report, f"{self.report.out_dir}/"
        lines = [", ".join(f"{c} {getattr(r, c)}" for c in FETCH_COUNTS) + f" DOIs in {r.seconds:.1f} s -> {folder}",
                 self.rate_line()]
        named = sorted(r.missing_dois)[:fetching.MISSING_NAMED]
        lines += [f"missing: {doi}: not in Crossref" for doi in named]
        if r.missing:
            known = f" ({r.known_missing} known from an earlier run)" if r.known_missing else ""
            if r.missing > len(named):
                known += f" ({r.missing - len(named)} not named above)"
            lines.append(f"note: {plural(r.missing, 'DOI')} not in Crossref{known}, listed in "
                         f"{folder}{fetching.MISSING_FILE}; --refresh asks again")
        if r.over_max:
            more = f"{plural(r.over_max, 'more DOI', 'more DOIs')} {'was' if r.over_max == 1 else 'were'} not fetched"
            lines.append(f"note: --max {self.max_dois} reached; {more}; raise --max to fetch them")
        return "\n".join(lines)


def queries_json(queries: list) -> str:
    """``kg queries -f json``: a JSON array of what each stored query takes and returns."""
    from .query.catalogue import described
    return orjson.dumps([described(q) for q in queries], option=orjson.OPT_INDENT_2).decode()

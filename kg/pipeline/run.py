"""One build, local, with workers or on a cluster: the graph is written its way (``stream``: merged into the
workspace graph; ``cluster``: parts written by the workers), then every build ends alike: validate -> export ->
store -> commit, all outputs replaced together (``kg.infra.outputs.Outputs``) or none."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .. import export
from ..errors import BuildInterrupted, KgError, UsageError, ValidationFailed
from ..infra import faults, outputs
from ..infra import parts as parts_folder
from ..infra.location import Location
from ..infra.workers import Forked, default_jobs, forking_works
from ..ingest.read import display_path
from ..ingest.spool import spool
from ..map.context import ContextSpec
from ..query.backends import build_disk_store
from ..rdf.ids import DEFAULT_BASE, check_base
from ..rdf.io import canonical_lines
from ..rdf.nquads import count_triples
from ..validate import ValidationReport, in_shards, validate_collected, validate_file, violation_message
from ..workspace import (
    drop_parts_pointer,
    inputs_note,
    options_record,
    point_at_parts,
    scratch_dir,
    workspace,
    write_inputs,
)
from .memory import BuildReport
from .stream import StreamResult, build_stream
from .tuning import Tuning

if TYPE_CHECKING:  # (names for the type hints only: Dask is imported only for a cluster build)
    from .cluster import DaskEngine

AUTO_SAMPLE = 1000  # --validate auto: the whole graph up to this many records, else a sample of this size
Lines = Callable[[], Iterable[str]]  # the graph's canonical lines, read again for each output that needs them


@dataclass(frozen=True)
class BuildOptions:
    """How ``kg build`` builds (everything but the inputs), as one value.

    ``validation``: auto (whole graph up to 1,000 records, else a deterministic sample of 1,000 records), full,
    sample:N or none; a graph with violations is not written unless ``allow_invalid``. ``jobs``: worker processes
    (default: the available cores); the output never depends on it. ``tuning``: chunk, merge and shard sizes (how
    the build runs, never what it writes). ``cluster``: run on Dask (``local:N`` or a scheduler address, see
    ``kg.pipeline.cluster``) and write the graph as a parts folder (``parts``, a path or an fsspec URL, default:
    parts/ in the workspace) that the workspace then refers to; ``scratch``: where its tasks pass on their tables
    (a path or URL every worker reaches; default: the workspace's scratch folder). ``on_problem(level, line)``
    hears of each skipped record and warning; ``on_progress(stage, done, total=None, unit="records")`` of how
    each stage goes: read, resolved, map (records), merge (lines written), validate (shards done of shards),
    export (triples), store (lines); ``on_tasks(stage, done, total)`` of a cluster build's tasks.
    """

    output: str | None = None
    fmt: str | None = None
    base: str = DEFAULT_BASE
    strict: bool = False
    tools: tuple[Path, ...] | None = None
    topics: Path | None = None
    validation: str = "auto"
    allow_invalid: bool = False
    shapes: Path | None = None
    store: Path | None = None
    jobs: int | None = None
    tuning: Tuning = Tuning()
    cluster: str | None = None
    parts: Path | str | None = None
    scratch: Path | str | None = None
    on_problem: Callable[[str, str], None] | None = None
    on_progress: Callable[..., None] | None = None
    on_tasks: Callable[[str, int, int], None] | None = None

    def sample_size(self) -> int | None:
        """Records to validate: None for every record, else the sample size.

        >>> BuildOptions(validation="sample:40").sample_size(), BuildOptions(validation="full").sample_size()
        (40, None)
        """
        v = self.validation
        if v in ("full", "none"):
            return None
        if v == "auto":
            return AUTO_SAMPLE
        if v.startswith("sample:") and v[7:].isdigit() and int(v[7:]) > 0:
            return int(v[7:])
        raise UsageError(f"--validate {v!r}: use auto, full, sample:N or none")


@dataclass
class Built:
    """What ``build`` did: the build report, counts, and the workspace graph it wrote."""

    report: BuildReport
    works: int
    quads: int
    triples: int
    graph: Path | str  # the workspace graph, or the parts folder (a path or a URL) of a cluster build


def build(inputs: list[str], options: BuildOptions) -> tuple[Built, ValidationReport | None]:
    """Build the graph of ``inputs`` in a stream, validate it, and write the workspace graph and, if asked, an
    export and the on-disk store. Every output is checked before the build starts and all are replaced together
    at its end: an interruption (``BuildInterrupted``) or a failure leaves all of them as they were. An input that
    cannot be read twice (``-`` for standard input, a pipe) is copied once to the scratch folder."""
    spec = ContextSpec(options.base, options.tools, options.topics)
    spec.create()  # bad base, catalogue or overrides: fail before reading
    out_fmt = export.resolve_format(options.fmt, options.output) if options.output else None
    options.sample_size()  # a bad --validate too
    plan = outputs.Outputs(workspace(), workspace() / "graph.nq", options.output, options.store)
    try:
        with plan:
            run = _Run(plan, options, spec, out_fmt, scratch_dir(plan.workspace))
            try:
                if options.cluster is None:
                    return run.local(inputs)
                from .cluster import DaskEngine  # (here: Dask is imported only for a cluster build)
                with DaskEngine(options.cluster, options.on_tasks) as engine:
                    return run.on_cluster(inputs, engine)
            finally:
                shutil.rmtree(run.scratch, ignore_errors=True)
    except KeyboardInterrupt:
        raise BuildInterrupted(plan.committed) from None


@dataclass
class _Run:
    """One build under way: its outputs (``plan``), options, context and scratch folder."""

    plan: outputs.Outputs
    options: BuildOptions
    spec: ContextSpec
    out_fmt: str | None
    scratch: Path

    @property
    def jobs(self) -> int:
        return self.options.jobs or default_jobs()

    def local(self, inputs: list[str]) -> tuple[Built, ValidationReport | None]:
        """The graph merged into the workspace graph (with workers, the sample validated while it is merged)."""
        o, plan = self.options, self.plan
        note, manifest = inputs_note(plan, inputs, options_record(o.base, o.tools, o.topics))
        result = build_stream(spool(inputs, self.scratch), self.spec, self.scratch, jobs=self.jobs, strict=o.strict,
                              sample=o.sample_size(), on_problem=o.on_problem, on_progress=o.on_progress,
                              tuning=o.tuning)
        built = Built(result.report, result.works, 0, 0, plan.workspace / "graph.nq")
        if not self._lead_notes(result.report, note):
            return built, None
        report = None
        t = time.perf_counter()
        checked = o.validation != "none"
        sample_file = self.scratch / "sample.nq"
        n_sample = result.write_sample(sample_file) if checked and result.sample is not None else None
        whole = checked and n_sample is None  # validate every line: gather them as they are written (a few)
        every_line: list[str] = []
        sample_lines: list[str] | None = None
        with ExitStack() as stack:
            early = None  # with workers, the sample is validated while the graph is merged
            sharding = o.tuning.sharding
            if n_sample is not None:
                if self.jobs > 1 and in_shards(n_sample, sharding) and forking_works():
                    # the lines reach it in a file: this process never holds them (the child inherits nothing big)
                    early = stack.enter_context(Forked(validate_file, sample_file, result.shared_graphs, o.shapes,
                                                       self.jobs, sharding, reports=o.on_progress is not None))
                else:
                    with open(sample_file, encoding="utf-8", newline="\n") as fh:
                        sample_lines = fh.readlines()
            with outputs.opened(plan.graph, binary=True) as fh:  # (a full disk here is the workspace's)
                validated = _merge(result, fh, built, every_line if whole else None, o.on_progress, early,
                                   sharding.above)
            result.drop_runs()  # (merged: what follows reads the graph's file; at 100k records they are 28 GB)
            faults.reached("graph")
            write_inputs(plan, manifest)
            t = result.report.timed("merge", t)
            if checked:
                judged: Iterable[str] | None = every_line if whole else sample_lines
                if early is not None:
                    if o.on_progress and validated is not None:
                        o.on_progress(*validated)
                    report = early.result(o.on_progress)  # (the wait for it, past the merge, is the validate stage)
                elif whole and in_shards(built.quads, sharding):  # (too many to gather: read from the graph file)
                    graph_file = plan.graph.tmp
                    assert graph_file is not None
                    report = validate_file(graph_file, result.shared_graphs, o.shapes, self.jobs, sharding,
                                           o.on_progress)
                    judged = canonical_lines(graph_file)
                else:
                    to_check = every_line if whole else sample_lines
                    assert to_check is not None  # not handed to a worker: the sample is kept, or every line
                    report = validate_collected(to_check, result.shared_graphs, o.shapes, self.jobs, sharding,
                                                o.on_progress)
                t = self._judged(report, result.report, judged, t)
        graph_tmp = plan.graph.tmp
        assert graph_tmp is not None
        self._tail(built, t, lambda: canonical_lines(graph_tmp), then=lambda: drop_parts_pointer(plan))
        return built, report

    def on_cluster(self, inputs: list[str], engine: DaskEngine) -> tuple[Built, ValidationReport | None]:
        """The parts written by the workers into a temporary folder beside the parts folder, which is validated,
        exported and loaded from there, then put in place with its manifest, written last."""
        o, plan = self.options, self.plan
        folder = Location(o.parts or plan.workspace / "parts")
        work = Location(o.scratch).child(f"kg-build-{outputs._tag()}") if o.scratch else \
            Location(self.scratch / "tasks")
        if not folder.url:
            outputs.remove_dead(Path(folder.where).parent, f".{folder.name}.")
        tmp = folder.sibling(f".{folder.name}.building-{outputs._tag()}")
        try:
            note, manifest = inputs_note(plan, inputs, options_record(o.base, o.tools, o.topics))
            given = spool(inputs, self.scratch, urls=False)
            work.make()
            result = engine.build(given, self.spec, o.tuning, work, tmp, o.strict, o.on_problem, o.sample_size(),
                                  o.on_progress)
            built = Built(result.report, result.works, result.lines, result.triples, folder.local or folder.where)
            if not self._lead_notes(result.report, note):
                return built, None
            faults.reached("graph")
            t = time.perf_counter()
            report = None
            if o.validation != "none":
                lines = result.sample_lines() if result.sample is not None else list(result.graph_lines(tmp))
                report = validate_collected(lines, result.shared_graphs, o.shapes, self.jobs, o.tuning.sharding,
                                            o.on_progress)
                t = self._judged(report, result.report, lines, t)
            write_inputs(plan, manifest)

            def put() -> None:
                stats = engine.stats
                parts_folder.commit(tmp, folder, {
                    "format": parts_folder.FORMAT, "version": parts_folder.VERSION, "parts": result.parts,
                    "lines": result.lines, "triples": result.triples, "inputs": [display_path(i) for i in inputs],
                    "options": {"base": o.base, "validation": o.validation, "cluster": o.cluster},
                    "records": result.report.records, "works": result.works, "partitions": result.partitions,
                    "workers": dict(sorted(stats.workers.items())),
                    "worker_peak_kib": dict(sorted(stats.peak_kib.items())),
                    "bytes_written": dict(sorted(stats.written.items())), "stage_seconds": stats.seconds,
                    "stage_cpu_seconds": stats.cpu, "task_cpu_seconds": dict(sorted(stats.task_cpu.items()))})
                point_at_parts(plan, folder)

            self._tail(built, t, lambda: result.graph_lines(tmp), put=put)
            return built, report
        finally:
            tmp.remove()
            work.remove()

    def _lead_notes(self, report: BuildReport, note: str | None) -> bool:
        """Put a build's leading notes (a rolled-forward build, its inputs') first; False when it read no record."""
        if self.plan.rolled_forward:
            report.notes.insert(0, f"{self.plan.workspace}: a build was killed while putting its outputs in "
                                   "place; its renames were finished first, so its outputs were all new")
        if report.records == 0:
            return False
        if note:
            report.notes.insert(0, note)
        return True

    def _judged(self, report: ValidationReport, built: BuildReport, lines: Iterable[str] | None, t: float) -> float:
        """The validate stage ends: a graph with violations stops the build here unless --allow-invalid."""
        t = built.timed("validate", t)
        faults.reached("validate")
        if report.count("Violation") and not self.options.allow_invalid:
            raise ValidationFailed(violation_message(report, lines, check_base(self.spec.base)), report)
        return t

    def _tail(self, built: Built, t: float, lines: Lines, put: Callable[[], None] | None = None,
              then: Callable[[], None] | None = None) -> None:
        """Export and store the graph's ``lines``, then commit every output; ``put`` puts the graph in place
        before the commit, ``then`` tidies after it."""
        plan, on_progress, report = self.plan, self.options.on_progress, built.report
        if plan.output is not None and self.out_fmt:
            if on_progress:
                on_progress("export", built.triples, None, "triples")
            with plan.writing(plan.output) as fh:
                export.WRITERS[self.out_fmt](lines(), fh)
            faults.reached("export")
            t = report.timed("export", t)
        if plan.store is not None and plan.store_building is not None:
            if on_progress:
                on_progress("store", built.quads, None, "lines")
            _store(plan, lines(), self.scratch)
            report.timed("store", t)
        if put is not None:
            put()
        faults.reached("commit")
        plan.commit()
        if then is not None:
            then()
        faults.reached("committed")


def _merge(result: StreamResult, fh: IO[bytes], built: Built, every_line: list[str] | None,
           on_progress: Callable[..., None] | None, early: Forked[Any] | None,
           gathered: int) -> tuple[object, ...] | None:
    """Write the merged graph's blocks to ``fh``, counting lines and triples into ``built`` (and gathering the
    lines into ``every_line`` when every line is validated, while they are at most ``gathered``: more are
    validated from the graph's file, ``validate_file``); returns the last report of the early validation."""
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
        if every_line is not None and built.quads > gathered:
            every_line.clear()
            every_line = None
        if every_line is not None:
            every_line.extend(part + "\n" for part in block.decode("utf-8").split("\n")[:-1])
        if on_progress:
            on_progress("merge", built.quads, None, "lines")
            if early is not None:
                latest = early.poll()  # (read as they come, so that the child never waits on the pipe)
                validated = latest[-1] if latest else validated
    return validated


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

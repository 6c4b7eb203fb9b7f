"""The streaming build on a Dask cluster: the tasks of ``kg.pipeline.partitioned``, stage after stage, and the small
reduces of their answers (counts, problems, notes, the validation sample, the splitters of the parts) here, in the
driver. Dask is imported only here, only when asked.

Stages (each waits for the one before: every task of a stage reads a section of every file the stage before
wrote): read (pass 1, a task per input file), dedupe (a task per DOI partition), resolve (the names, then the
resolution steps in three stages of a task per partition, then the cited works' titles), map (pass 2, a task per
input file), reduce (the shared graphs per partition, then the facts, which join the tools' names the shared
graphs hold), parts (a task per part of the graph).
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import KgError, UsageError
from ..infra import faults, ranges
from ..infra.extsort import fan_in
from ..infra.location import Location
from ..ingest.read import Input, expand_paths
from ..ingest.spool import is_url, url_files
from ..map.context import ContextSpec
from ..refs.topics import unused_overrides
from . import partitioned
from .memory import BuildReport
from .partitioned import Done, Plan
from .stream import SampleFilter, run_records
from .tuning import Tuning

# Dask's own monitors, as a local cluster runs them: a worker's statistical profiler (a stack sample every 10 ms),
# the event loops' tick watch (every 20 ms), the system and memory monitors. Together they took 14% of a core
# with two idle workers (8.7 CPU seconds a minute), 1.7% with these settings; the build reads none of them.
QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
         "distributed.admin.system-monitor.interval": "2s", "distributed.admin.system-monitor.gil.enabled": False,
         "distributed.worker.memory.monitor-interval": "1s"}
# A local cluster's workers are restarted by their nannies when they die; the cluster closed a nanny for good
# when its worker was missing again 15 s after dying once (``deploy.lost-worker-timeout``, meant for batch jobs),
# and with no nanny left the build waited for ever. If no worker is left all the same, tasks fail after a while.
LOCAL = {"distributed.deploy.lost-worker-timeout": "3650 days", "distributed.scheduler.no-workers-timeout": "5 minutes"}


def _cpu() -> float:
    import resource
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def _given(value: Any) -> Any:
    """A value the tasks of a stage share, as the answer of a task of its own: the scheduler keeps the value in
    the task's recipe, so a worker that dies with it does not lose it (scattered data would be lost for good)."""
    return value


def _task(fn: Callable[..., Done], *args: Any) -> tuple[str, int, float, Done | KgError]:
    """Run a task in a worker: who ran it, its peak resident memory so far (KiB), the CPU seconds it took (its
    sorts included), and its answer, or the error (bad input: one line for the user, not a failure to retry).
    ``KG_FAULT_ONCE=FN:FILE`` (``faults.dies_once``) kills the worker once after task FN did its work."""
    import resource

    from distributed import get_worker
    cpu = _cpu()
    try:
        done: Done | KgError = fn(*args)
    except KgError as e:
        done = e
    faults.dies_once(fn.__name__)  # (its outputs are written, its answer is not delivered)
    return str(get_worker().address), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, _cpu() - cpu, done


@dataclass
class Stats:
    """How the cluster ran: tasks per worker, peak memory per worker, bytes written to the scratch location."""

    workers: Counter[str] = field(default_factory=Counter)
    peak_kib: dict[str, int] = field(default_factory=dict)
    written: Counter[str] = field(default_factory=Counter)  # bytes by what: shuffled, runs, parts
    seconds: dict[str, float] = field(default_factory=dict)  # wall seconds per stage
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds of the tasks per stage
    task_cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per task function, and the longest task

    def take(self, worker: str, peak: int) -> None:
        self.workers[worker] += 1
        self.peak_kib[worker] = max(peak, self.peak_kib.get(worker, 0))


@dataclass
class Partitioned:
    """A finished cluster build: the report, the parts written (in the temporary location), what validation needs."""

    report: BuildReport
    works: int = 0
    partitions: int = 0  # the hash partitions of the stages between the two passes
    parts: list[dict[str, Any]] = field(default_factory=list)  # name, lines, triples of each part
    lines: int = 0
    triples: int = 0
    sample: set[str] | None = None  # graph IRIs of the sampled records (None: every record)
    sampled: list[str] = field(default_factory=list)
    shared_graphs: set[str] = field(default_factory=set)
    picked: list[str] = field(default_factory=list)  # the lines of the shared graphs the sample needs

    def graph_lines(self, out: Location) -> Iterator[str]:
        """The graph's lines, from the parts written in ``out`` (before their manifest is)."""
        from ..infra.parts import lines
        return lines(out, [p["name"] for p in self.parts])

    def sample_lines(self) -> list[str]:
        """What validating the sample needs, sorted (as ``stream.StreamResult.sample_lines``): the lines of the
        sampled records, and those of the shared graphs' runs that the workers picked."""
        return sorted(set(self.picked).union(self.sampled))


class DaskEngine:
    """A connection to a Dask cluster: ``address`` is ``local:N`` (a local cluster of N worker processes, started
    here) or a scheduler address Dask accepts (``tcp://host:8786``)."""

    def __init__(self, address: str, on_tasks: Callable[[str, int, int], None] | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError("--cluster needs Dask; install it with pip install 'crossref-kg[cluster]'") from None
        self.on_tasks = on_tasks
        self.key = f"{os.getpid()}-{os.urandom(4).hex()}"
        self.stats = Stats()
        self.cluster: Any = None
        self.config: Any = None
        if address.startswith("local:"):
            n = address[6:]
            if not n.isdigit() or int(n) < 1:
                raise UsageError(f"--cluster {address!r}: use local:N (N worker processes) or a scheduler address")
            import dask
            self.config = dask.config.set(LOCAL)  # (read while the cluster runs: undone by ``close``)
            try:
                with dask.config.set(QUIET):
                    self.cluster = LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True,
                                                dashboard_address=None, silence_logs=logging.ERROR)
                    self.client = Client(self.cluster)
            except BaseException:
                self.close()
                raise
        else:
            try:
                self.client = Client(address, timeout=30)
            except (OSError, TimeoutError, ValueError) as e:
                raise KgError(f"--cluster {address}: cannot reach the Dask scheduler ({e}); check the address "
                              "and that the scheduler runs") from None

    def close(self) -> None:
        if getattr(self, "client", None) is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        if self.config is not None:
            self.config.__exit__(None, None, None)
            self.config = None

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def size(self) -> int:
        """Worker processes the cluster has now."""
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def share(self, name: str, value: Any) -> Any:
        """``value`` for the tasks of the stages to come (passed to them in place of the value): one copy, made
        again by the scheduler if the workers that hold it die."""
        return self.client.submit(_given, value, key=f"{name}-{self.key}", pure=False)

    def stage(self, stage: str, tasks: list[tuple[Callable[..., Done], tuple]], what: str = "shuffled",
              ) -> Iterator[Done]:
        """Run ``tasks`` (function, arguments); their answers in order, as each is ready. A task that fails is
        retried; a worker that dies: its tasks, and the answers it held, are made again elsewhere (a task that
        was running on ``allowed-failures`` + 1 workers that died fails the build); an interruption cancels the
        tasks not done."""
        from distributed import KilledWorker
        from distributed.scheduler import NoWorkerError
        futures = [self.client.submit(_task, fn, *args, key=f"{stage}-{fn.__name__}-{i}-{self.key}", retries=3,
                                      pure=False) for i, (fn, args) in enumerate(tasks)]
        started = time.perf_counter()
        try:
            for i, future in enumerate(futures):
                try:
                    worker, peak, cpu, done = future.result()
                except KilledWorker as e:
                    raise KgError(f"--cluster: the {stage} task {tasks[i][0].__name__} was running on each of "
                                  f"{e.allowed_failures + 1} workers that died (out of memory?); give the workers "
                                  "more memory, or raise the scheduler's distributed.scheduler.allowed-failures"
                                  ) from None
                except NoWorkerError:
                    raise KgError(f"--cluster: no worker was left to run the {stage} task {tasks[i][0].__name__}; "
                                  "start workers, or check why they died (memory?)") from None
                future.release()
                if isinstance(done, KgError):
                    raise done
                self.stats.take(worker, peak)
                self.stats.cpu[stage] = round(self.stats.cpu.get(stage, 0.0) + cpu, 2)
                name = tasks[i][0].__name__
                self.stats.task_cpu[name] = round(self.stats.task_cpu.get(name, 0.0) + cpu, 2)
                self.stats.task_cpu[f"{name} (longest)"] = round(max(cpu, self.stats.task_cpu.get(
                    f"{name} (longest)", 0.0)), 2)
                self.stats.written[what] += done.written
                if self.on_tasks:
                    self.on_tasks(stage, i + 1, len(futures))
                yield done
        finally:
            self.client.cancel([f for f in futures if not f.done()])
            self.stats.seconds[stage] = round(self.stats.seconds.get(stage, 0.0) + time.perf_counter() - started, 2)

    def build(self, inputs: list[Input], spec: ContextSpec, tuning: Tuning, scratch: Location, out: Location,
              strict: bool, on_problem: Callable[[str, str], None] | None, sample: int | None,
              on_progress: Callable[..., None] | None = None) -> Partitioned:
        """Build the graph of ``inputs`` into parts in ``out`` (a temporary location the caller puts in place),
        with ``scratch`` (seen by every worker) for what the stages pass on."""
        report = BuildReport()
        problem = report.recorder(strict, on_problem)
        result = Partitioned(report)
        t = time.perf_counter()
        ctx = partitioned.context(spec)
        files = _files(inputs, scratch)
        size = sum(_size(where) for _shown, where, _explicit in files)
        workers = self.size
        n = result.partitions = workers * max(2, math.ceil(size / tuning.partition_bytes / workers))
        plan = self.share("plan", Plan(scratch, spec, tuning, n, tuple(files), sample_size=sample))
        plain = Plan(scratch, spec, tuning, n, tuple(files), sample_size=sample)
        if on_progress:
            on_progress("read", 0)
        for done in self.stage("read", [(partitioned.scan, (plan, f)) for f in range(len(files))]):
            faults.reached("read")
            for level, line in done.answer["events"]:
                if level == "error":
                    report.skipped += 1
                problem(level, line)
            report.records += done.answer["records"]
            report.notes.extend(done.answer["notes"])
            if on_progress:
                on_progress("read", report.records)
        found: set[str] = set()
        candidates: list[tuple[str, str]] = []
        for done in self.stage("dedupe", [(partitioned.dedupe, (plan, b)) for b in range(n)]):
            report.notes.extend(done.answer["notes"])
            report.merged += done.answer["merged"]
            result.works += done.answer["works"]
            found.update(done.answer["found"])
            candidates.extend(done.answer["sample"])
        report.notes.sort()
        for line in unused_overrides(ctx.topic_lines, found):
            problem("warning", line)
        t = report.timed("read", t)
        result.shared_graphs = ctx.minter.shared_graphs()
        if not result.works:
            return result
        if on_progress:
            on_progress("resolve", result.works)
        chosen: frozenset[str] = frozenset()
        if sample is not None and sample < result.works:
            chosen = frozenset(ctx.minter.graph(doi) for _sha, doi in sorted(candidates)[:sample])
            result.sample = set(chosen)
        runs = self._resolve(plan, n)
        t = report.timed("resolve", t)
        mapping = self.share("mapping", replace(plain, sample=chosen))
        per_run = run_records(result.works, fan_in(tuning.fan_in), tuning)
        row_runs = [f"fact-rows-{name}.txt" for name in _names(n)]
        if on_progress:
            on_progress("map", 0, result.works)
        mapped = 0
        for f, done in enumerate(self.stage("map", [(partitioned.map_file, (mapping, f, per_run))
                                                    for f in range(len(files))], "runs")):
            if f == 0:
                faults.reached("map")
            mapped += done.answer["records"]
            result.sampled.extend(done.answer["sampled"])
            runs.extend(done.answer["runs"])
            row_runs.append(f"fact-rows-map-{f:05d}.txt")
            if on_progress:
                on_progress("map", mapped, result.works)
        knowledge = [r["name"] for r in runs if not r["name"].startswith("map-")]
        # (the facts after the shared graphs: they join the tools' names, rows of the shared graphs, too)
        for tasks in ([(partitioned.shared, (plan, p)) for p in range(n)],
                      [(partitioned.fact_graph, (plan, row_runs + [partitioned.shared_rows(p) for p in range(n)]))]):
            for done in self.stage("reduce", tasks, "runs"):
                runs.extend(done.answer["runs"])
                knowledge.extend(r["name"] for r in done.answer["runs"])
        if result.sample is not None:
            wanted = self.share("wanted", SampleFilter(result.sampled, result.shared_graphs))
            for done in self.stage("sample", [(partitioned.sample_lines, (plan, name, wanted))
                                              for name in sorted(knowledge)], "runs"):
                result.picked.extend(done.answer["lines"])
        t = report.timed("map", t)
        self._parts(plan, tuning, runs, out, result, on_progress, workers)
        report.timed("merge", t)
        return result

    def _resolve(self, plan: Any, n: int) -> list[dict[str, Any]]:
        """The names and the resolution stages; the knowledge graph's runs they wrote."""
        pages: set[tuple[str, str]] = set()
        for done in self.stage("resolve", [(partitioned.named, (plan, p)) for p in range(n)]
                               + [(partitioned.resolve_titles, (plan, p)) for p in range(n)]):
            pages.update(done.answer.get("tool_pages", ()))
        runs: list[dict[str, Any]] = []
        listed = sorted(pages)
        stages: list[tuple[str, list[tuple[Callable[..., Done], tuple]]]] = [
            ("groups", [(partitioned.resolve_groups, (plan, p, listed)) for p in range(n)]),
            ("urls", [(partitioned.resolve_urls, (plan, p)) for p in range(n)]),
            ("cited", [(partitioned.cited, (plan, p)) for p in range(n)])]
        for stage, tasks in stages:
            for done in self.stage(f"resolve {stage}", tasks):
                runs.extend(done.answer["runs"])
        return runs

    def _parts(self, plan: Any, tuning: Tuning, runs: list[dict[str, Any]], out: Location, result: Partitioned,
               on_progress: Callable[..., None] | None, workers: int) -> None:
        """Cut the runs into key ranges (at least one a worker: of the ``workers`` at the start, or more if more
        have come, not fewer while a lost one restarts) and merge each into a part in ``out``."""
        total = sum(r["size"] for r in runs)
        size = max(workers, self.size)
        wanted = size * max(1, math.ceil(total / tuning.part_bytes / size))  # (a multiple of the workers)
        cuts = ranges.splitters([key for r in runs for key in r["keys"]], wanted)
        bounds = [None, *cuts, None]
        listed = [(r["name"], r["size"]) for r in sorted(runs, key=lambda r: r["name"])]
        out.make()
        last: bytes | None = None
        for k, done in enumerate(self.stage("parts", [(partitioned.part, (plan, k, bounds[k], bounds[k + 1], listed,
                                                                         out)) for k in range(len(bounds) - 1)],
                                            "parts")):
            if k == 0:
                faults.reached("merge")
            a = done.answer
            triples = a["triples"] - (1 if a["first"] is not None and a["first"] == last else 0)
            last = a["last"] if a["last"] is not None else last
            result.parts.append({"name": partitioned.part_name(k), "lines": a["lines"], "triples": triples})
            result.lines += a["lines"]
            result.triples += triples
            if on_progress:
                on_progress("merge", result.lines, None, "lines")


def _names(n: int) -> list[str]:
    """The names of the resolution tasks' outputs (their fact rows are ``fact-rows-NAME.txt``)."""
    return [f"{kind}-{p:05d}" for kind in ("resolved", "urls", "cited") for p in range(n)]


def _size(where: str) -> int:
    if is_url(where):
        return 0
    try:
        return os.path.getsize(where)
    except OSError:
        return 0


def _files(inputs: list[Input], scratch: Location) -> list[tuple[str, str, bool]]:
    """Every input file as (name shown, path or URL, explicit): folders walked as the local build walks them, URLs
    listed; a copy of standard input or a pipe is put in a URL scratch location for the workers to read."""
    out: list[tuple[str, str, bool]] = []
    for n, given in enumerate(inputs):
        if isinstance(given, str) and is_url(given):
            out.extend((shown, url, True) for shown, url in url_files(given))
            continue
        for shown, path, explicit in expand_paths([given]):
            if isinstance(given, tuple) and scratch.url:
                name = f"input-{n:05d}"
                scratch.put(Path(path), name)
                out.append((shown, scratch.path(name), explicit))
            else:
                out.append((shown, str(path), explicit))
    return out

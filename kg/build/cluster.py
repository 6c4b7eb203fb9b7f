"""The streaming build on a Dask cluster: the per-partition steps of ``kg.build.stream`` (``_scan``, ``_map``) run
as Dask tasks, one input file a task, and the reduces between them (dedupe, resolution, the shared graphs) stay
in the driver, on the same disk-backed tables as the local build. Dask is imported only here, only when asked.

The scratch folder must be one every worker sees (a shared file system): the map tasks read the resolution
tables from it and write their sorted runs into it.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import KgError, UsageError
from ..infra import faults
from ..infra.extsort import Sorter
from ..ingest.read import Ignored, Input, expand_paths, iter_file
from ..map.context import ContextSpec
from ..map.shared import Used, merge_shared
from . import stream
from .memory import Report
from .stream import SHIFT, MappedChunk, ScanFailed, Scanned, StreamResult
from .tuning import Tuning

ITEM_BITS = 24  # items (records, or lines of a large JSON Lines file) of one input file: the low bits of n
_STATE: dict[str, str] = {}  # in a worker process: the build and stage whose state ``stream._init`` holds


def _worker(answer: Any) -> tuple[str, int, int]:
    """Who ran a task, its peak resident memory so far (KiB) and the bytes of its answer as sent back."""
    import pickle
    import resource

    from distributed import get_worker
    return (str(get_worker().address), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            len(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)))


def _ready(key: str, *initargs: Any) -> None:
    if _STATE.get("key") != key:
        stream._init(*initargs)
        _STATE["key"] = key


def _items(pidx: int, shown: str, path: str, explicit: bool, tuning: Tuning,
           notes: list[str] | None) -> Iterator[tuple[int, Any, None]]:
    """The chunk items of one input file, numbered (file << ITEM_BITS | item) << SHIFT."""
    for k, item in enumerate(iter_file(shown, Path(path), explicit, lazy=True, stream_above=tuning.stream_above)):
        if k >> ITEM_BITS:
            raise KgError(f"{shown}: holds more than {1 << ITEM_BITS} records or lines; split it into smaller files")
        if isinstance(item, Ignored):
            if notes is not None:
                notes.append(str(item))
            continue
        yield (pidx << ITEM_BITS | k) << SHIFT, item, None


def scan_task(key: str, spec: ContextSpec, pidx: int, shown: str, path: str, explicit: bool,
              tuning: Tuning) -> tuple[tuple[str, int, int], list[str], list[list[Scanned | ScanFailed]]]:
    """Pass 1 on one input file, in a worker: ``stream._scan`` of each chunk, and the notes of ignored files."""
    _ready(f"{key}:scan", spec)
    notes: list[str] = []
    answers = [stream._scan(chunk) for chunk in stream._chunks(_items(pidx, shown, path, explicit, tuning, notes),
                                                                tuning.chunk)]
    return _worker(answers), notes, answers


def map_task(key: str, initargs: tuple, pidx: int, shown: str, path: str, explicit: bool, kept: frozenset[int],
             size: int, tuning: Tuning) -> tuple[tuple[str, int, int], list[MappedChunk]]:
    """Pass 2 on the kept records of one input file, in a worker: ``stream._map`` of each chunk of ``size``."""
    _ready(f"{key}:map", *initargs)
    faults.dies_once("map-task")
    chunks = stream._chunks(stream._kept(_items(pidx, shown, path, explicit, tuning, None), set(kept)), size)
    mapped = [stream._map((pidx << 20 | c, chunk)) for c, chunk in enumerate(chunks)]
    return _worker(mapped), mapped


def _local_inputs(inputs: list[Input]) -> list[tuple[str, str, bool]]:
    """Each input file as (name shown, path, explicit), folders walked as the local build walks them."""
    return [(shown, str(path), explicit) for shown, path, explicit in expand_paths(inputs)]


class DaskEngine:
    """``stream.Engine`` on Dask: ``address`` is ``local:N`` (a local cluster of N worker processes, started
    here) or a scheduler address Dask accepts (``tcp://host:8786``)."""

    def __init__(self, address: str, spec: ContextSpec, tuning: Tuning, scratch: Path,
                 on_tasks: Callable[[str, int, int], None] | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError("--cluster needs Dask; install it with pip install 'crossref-kg[cluster]'") from None
        self.spec, self.tuning, self.scratch, self.on_tasks = spec, tuning, scratch, on_tasks
        self.key = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.workers: Counter[str] = Counter()  # tasks run per worker address
        self.peak: dict[str, int] = {}  # peak resident KiB per worker address
        self.moved = 0  # bytes of the tasks' answers sent back to this process
        self.runs_bytes = 0  # bytes of the sorted runs the map tasks wrote to the scratch folder
        self.files: list[tuple[str, str, bool]] = []
        self.cluster: Any = None
        if address.startswith("local:"):
            n = address[6:]
            if not n.isdigit() or int(n) < 1:
                raise UsageError(f"--cluster {address!r}: use local:N (N worker processes) or a scheduler address")
            self.cluster = LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout=30)
            except (OSError, TimeoutError, ValueError) as e:
                raise KgError(f"--cluster {address}: cannot reach the Dask scheduler ({e}); check the address "
                              "and that the scheduler runs") from None

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def size(self) -> int:
        """Worker processes the cluster has now."""
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def _taken(self, stage: str, futures: list[Any]) -> Iterator[Any]:
        """The futures' results in order, counted per worker, progress reported, each released once taken."""
        for i, future in enumerate(futures):
            (worker, peak, size), *rest = future.result()
            future.release()
            self.workers[worker] += 1
            self.peak[worker] = max(peak, self.peak.get(worker, 0))
            self.moved += size
            if self.on_tasks:
                self.on_tasks(stage, i + 1, len(futures))
            yield rest

    def scans(self, inputs: list[Input], report: Report) -> Iterator[list[Scanned | ScanFailed]]:
        self.files = _local_inputs(inputs)
        futures = [self.client.submit(scan_task, self.key, self.spec, i, shown, path, explicit, self.tuning,
                                      key=f"scan-{self.key}-{i}", retries=3, pure=False)
                   for i, (shown, path, explicit) in enumerate(self.files)]
        for notes, answers in self._taken("read", futures):
            report.notes.extend(notes)
            yield from answers

    def maps(self, kept: set[int], chosen: frozenset[str], result: StreamResult, fact_rows: Sorter) -> Used:
        per_file: dict[int, set[int]] = {}
        for seq in kept:
            per_file.setdefault(seq >> (SHIFT + ITEM_BITS), set()).add(seq)
        size = stream.run_records(len(kept), stream.fan_in(self.tuning.fan_in), self.tuning)
        initargs = (self.spec, result.scratch / "resolve.sqlite", result.scratch, chosen)
        futures = [self.client.submit(map_task, self.key, initargs, i, shown, path, explicit,
                                      frozenset(per_file[i]), size, self.tuning, key=f"map-{self.key}-{i}",
                                      retries=3, pure=False)
                   for i, (shown, path, explicit) in enumerate(self.files) if i in per_file]
        used: Used = {}
        for (chunks,) in self._taken("map", futures):
            for answer in chunks:
                result.sampled.extend(answer.sampled)
                result.runs.append(answer.run)
                fact_rows.extend(answer.fact_rows)
                self.runs_bytes += answer.run.stat().st_size
                merge_shared(used, answer.used)
        return used

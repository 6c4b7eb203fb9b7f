"""The knobs of a build that change how it runs, never what it writes: one frozen value, passed down."""

from __future__ import annotations

from dataclasses import dataclass

from ..infra import extsort
from ..ingest import read
from ..refs import resolve_disk
from ..validate.shards import Sharding


@dataclass(frozen=True)
class Tuning:
    """Chunk, run and merge sizes of the streaming build, and where reading, resolution and validation
    switch to their large-input ways. Tests pass small values to exercise those ways on small corpora."""

    chunk: int = 64  # records per task sent to a worker
    # pass 2 puts up to run_growth * chunk records in a run, so the final merge takes every run at once
    run_growth: int = 4
    group: int = 64  # with workers, group sorted runs of pass 2 are merged into one by a worker when there are many
    fan_in: int = extsort.MAX_FAN_IN  # runs merged at once at most (fewer where open files are limited)
    external_sort: bool = extsort.EXTERNAL  # merge with the system's sort when there is one
    stream_above: int = read.STREAM_ABOVE  # bytes: larger JSON Lines files are read line by line
    parallel_above: int = resolve_disk.PARALLEL_ABOVE  # references: with fewer, resolution runs in one process
    shard_above: int = Sharding.above  # validate graphs of more lines than this in shards of records (bounded memory)
    shard_records: int = Sharding.records  # records per validation shard: a shard costs its shared lines once
    # a cluster build: input bytes per hash partition (at least two partitions a worker), graph bytes per part
    partition_bytes: int = 256 << 20
    part_bytes: int = 1 << 30

    @property
    def sharding(self) -> Sharding:
        """The shard sizes validation takes (``kg.validate.shards``)."""
        return Sharding(self.shard_above, self.shard_records)

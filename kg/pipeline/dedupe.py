"""One rule for records that share a DOI, for both build drivers: the record deposited last is kept (ties
broken by the date it was indexed, its content hash, then its source), so the result does not depend on
input order; every record dropped gets one note naming both."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from ..model import Work

Rank = tuple[str, str, str, str, str]


def rank(work: Work, raw: dict[str, Any]) -> Rank:
    """What orders the records of one DOI: deposited, indexed, the sha256 of the record, its source."""
    dates = dict(work.record_dates)
    digest = hashlib.sha256(orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return dates.get("deposited", ""), dates.get("indexed", ""), digest, work.source.path, work.source.locator


@dataclass(frozen=True)
class Keep:
    """Keep the record offered; ``replaces``: the record of its DOI kept until now is dropped instead."""

    replaces: bool = False


@dataclass(frozen=True)
class Drop:
    """Drop the record offered: a record of its DOI ranks higher."""


_NEW, _REPLACE, _DROP = Keep(), Keep(True), Drop()


class DoiMerge:
    """The best record of each DOI so far, by ``rank``; ``notes`` gets a line per record dropped."""

    def __init__(self, notes: list[str]) -> None:
        self.notes = notes
        self.merged = 0
        self.best: dict[str, tuple[Rank, str]] = {}  # DOI -> (rank, where) of the record kept

    def offer(self, doi: str, rank: Rank, where: str) -> Keep | Drop:
        """A record of ``doi`` (``where`` names it); whether to keep it."""
        seen = self.best.get(doi)
        if seen is None:
            self.best[doi] = (rank, where)
            return _NEW
        self.merged += 1
        keep, drop = (where, seen[1]) if rank > seen[0] else (seen[1], where)
        self.notes.append(f"{drop}: same DOI as {keep}; merged into one work, keeping the record deposited last")
        if rank <= seen[0]:
            return _DROP
        self.best[doi] = (rank, where)
        return _REPLACE

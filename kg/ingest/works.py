"""Records to works: the one loop that sorts out what cannot be read or normalised, for every reader of inputs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from ..errors import InputError
from ..model import Source, Work
from .normalize import normalize
from .read import Ignored, ReadWarning

K = TypeVar("K")
Item = tuple[Source, Any] | InputError | Ignored | ReadWarning  # what ``read.iter_records`` gives (LazyLine aside)


def each_work(items: Iterable[tuple[K, Item]], problem: Callable[[str, str], None],
              ) -> Iterator[tuple[K, Work, list[str], Any]]:
    """(key, work, warnings, raw record) of every record of ``items`` (``(key, item)`` pairs) that normalises;
    ``problem("note", line)`` for a file that holds no JSON, ``problem("warning", line)`` for one read with bytes
    ignored, ``problem("error", line)`` for a record or file skipped, in input order."""
    for key, item in items:
        if isinstance(item, (Ignored, ReadWarning)):
            problem("warning" if isinstance(item, ReadWarning) else "note", str(item))
            continue
        if isinstance(item, InputError):
            problem("error", str(item))
            continue
        source, raw = item
        try:
            work, warnings = normalize(raw, source)
        except InputError as e:
            problem("error", str(e))
            continue
        yield key, work, warnings, raw

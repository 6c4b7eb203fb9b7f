"""Typed access to one raw record: a field of the wrong type becomes a warning and reads as absent."""

from __future__ import annotations

from typing import Any, TypeVar

from ..model import PartialDate
from ..rdf.terms import decimal
from .dates import date_of
from .text import MAX_INT_DIGITS, ascii_digits, clean, clip, json_kind, short, squash

T = TypeVar("T")
A = TypeVar("A")


class Fields:
    """Typed access to one raw record; wrong types become warnings and the field reads as absent."""

    def __init__(self, raw: dict[str, Any], where: str) -> None:
        self.raw = raw
        self.where = where
        self.warnings: list[str] = []
        self.written: list[tuple[str, str]] = []  # (path, value) kept as written (kg:asWritten)

    def warn(self, path: str, what: str, fix: str = "the field was left out; fix it at the source") -> None:
        self.warnings.append(f"{self.where}: {path} {what}; {fix}")

    def keep(self, path: str, value: str, what: str,
             fix: str = "it is kept as written (kg:asWritten); fix it at the source") -> None:
        """Warn about a value no property can carry and keep it as written."""
        self.warn(path, what, fix)
        self.written.append((path, value))

    def str_(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            self.warn(path, f"should be a string, got {json_kind(v)}")
            return None
        s = squash(str(v))
        return s or None

    def strs(self, obj: dict[str, Any], key: str, path: str, squeeze: bool = True) -> tuple[str, ...]:
        v = obj.get(key)
        if v is None:
            return ()
        if not isinstance(v, list):
            self.warn(path, f"should be a list of strings, got {json_kind(v)}")
            return ()
        out = []
        for i, item in enumerate(v):
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                self.warn(f"{path}[{i}]", f"should be a string, got {json_kind(item)}")
                continue
            s = squash(str(item)) if squeeze else clean(str(item)).strip()
            if s:
                out.append(s)
        return tuple(out)

    def int_(self, obj: dict[str, Any], key: str, path: str) -> int | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool):
            self.warn(path, f"should be an integer, got {json_kind(v)}")
            return None
        if isinstance(v, int):
            if abs(v) >= 10 ** MAX_INT_DIGITS:
                self.warn(path, f"is too large a number ({len(str(abs(v)))} digits)")
                return None
            return v
        if isinstance(v, str):
            t = v.strip()
            if ascii_digits(t.removeprefix("-"), 10**6):
                if len(t.removeprefix("-")) > MAX_INT_DIGITS:
                    self.warn(path, f"is too large a number ({len(t.removeprefix('-'))} digits)")
                    return None
                return int(t)
            self.warn(path, f"should be an integer, got {short(v)}")
            return None
        self.warn(path, f"should be an integer, got {json_kind(v)}")
        return None

    def count(self, obj: dict[str, Any], key: str, path: str) -> int | None:
        """A non-negative integer (a count, a delay in days)."""
        n = self.int_(obj, key, path)
        if n is not None and n < 0:
            self.warn(path, f"is negative ({n})")
            return None
        return n

    def decimal(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        """An amount: a decimal number as written, or (with a warning) None, the value kept as written."""
        v = self.str_(obj, key, path)
        if v is not None and decimal(v) is None:
            self.keep(path, v, f'"{clip(v)}" is not a decimal number')
            return None
        return v

    def dict_(self, obj: dict[str, Any], key: str, path: str) -> dict[str, Any] | None:
        return self._typed(obj, key, path, dict, "an object", None)

    def list_(self, obj: dict[str, Any], key: str, path: str) -> list[Any]:
        return self._typed(obj, key, path, list, "a list", [])

    def _typed(self, obj: dict[str, Any], key: str, path: str, of: type[T], what: str, absent: A) -> T | A:
        """The value of ``key`` when it is of the type ``of``, else ``absent`` (with a warning when it is there)."""
        v = obj.get(key)
        if v is None:
            return absent
        if not isinstance(v, of):
            self.warn(path, f"should be {what}, got {json_kind(v)}")
            return absent
        return v

    def objects(self, obj: dict[str, Any], key: str, path: str) -> list[tuple[str, dict[str, Any]]]:
        out = []
        for i, item in enumerate(self.list_(obj, key, path)):
            if isinstance(item, dict):
                out.append((f"{path}[{i}]", item))
            else:
                self.warn(f"{path}[{i}]", f"should be an object, got {json_kind(item)}")
        return out

    def date(self, obj: dict[str, Any], key: str, path: str) -> PartialDate | None:
        """``{"date-parts": [[y, m, d]]}`` -> PartialDate; ``[[null]]`` is Crossref's "no date"."""
        d = self._typed(obj, key, path, dict, "an object with date-parts", None)
        if d is None:
            return None
        parts = d.get("date-parts")
        if parts is None:
            return None
        if not (isinstance(parts, list) and parts and isinstance(parts[0], list)):
            self.warn(f"{path}.date-parts", f"should be a list like [[2024, 5, 1]], got {short(parts)}")
            return None
        date, problem = date_of(parts[0])
        if problem is not None:
            self.warn(f"{path}.date-parts", problem)
        return date

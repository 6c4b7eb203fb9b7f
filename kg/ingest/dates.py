"""Dates as Crossref writes them: ``date-parts`` to a ``PartialDate`` of a real calendar day, ISO date-times that
are valid ``xsd:dateTime`` values.

>>> date_of([2024, 2, 30])
(None, 'has an impossible day 2024-02-30')
"""

from __future__ import annotations

import re
from typing import Any

from ..model import PartialDate
from .text import ascii_digits, short

DATETIME_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,12})?"
                          r"(?:Z|[+-]([0-9]{2}):([0-9]{2}))?$")


def datetime_ok(text: str) -> bool:
    """True for an ISO date-time that is a valid xsd:dateTime: ASCII digits, a real calendar day, hours 0-23,
    minutes and seconds 0-59, a time zone within +-14:00."""
    m = DATETIME_RE.match(text)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not (1 <= year and 1 <= month <= 12 and 1 <= day <= days_in(year, month)):
        return False
    if hour > 23 or minute > 59 or second > 59:
        return False
    if m.group(7) is not None:
        tz_h, tz_m = int(m.group(7)), int(m.group(8))
        if tz_m > 59 or tz_h * 60 + tz_m > 14 * 60:
            return False
    return True


def days_in(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def date_of(first: list[Any]) -> tuple[PartialDate | None, str | None]:
    """The first list of ``date-parts`` (``[2024, 5, 1]``) -> (its date, None), (None, None) for ``[null]``
    (Crossref's "no date"), or (None, what is wrong with it)."""
    if not first or first[0] is None:
        return None, None  # [[null]]: Crossref says the date is unknown
    nums: list[int] = []
    for p in first[:3]:
        if p is None:
            break
        if isinstance(p, str) and ascii_digits(p.strip(), 10**6):
            if len(p.strip()) > 9:
                return None, f"has an impossible part ({len(p.strip())} digits)"
            p = int(p.strip())
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            return None, f"has a non-numeric part {short(p)}"
        if p >= 10**9:
            digits = len(str(p)) if p < 10**4000 else "thousands of"
            return None, f"has an impossible part ({digits} digits)"
        nums.append(p)
    year = nums[0]
    month = nums[1] if len(nums) > 1 else None
    day = nums[2] if len(nums) > 2 else None
    if not 1 <= year <= 9999:
        return None, f"has an impossible year {year}"
    if month is not None and not 1 <= month <= 12:
        return None, f"has an impossible month {month}"
    if day is not None and not 1 <= day <= days_in(year, month or 1):
        return None, f"has an impossible day {year}-{month:02d}-{day:02d}"
    return PartialDate(year, month, day), None

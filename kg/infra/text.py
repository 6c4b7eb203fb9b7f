"""Small text helpers for the lines the tool writes to people."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the word, in the plural unless ``n`` is 1 (``many``, else the word + "s").

    Example:

    >>> plural(1, "record"), plural(2, "retry", "retries")
    ('1 record', '2 retries')
    """
    return f"{n} {word if n == 1 else many or word + 's'}"

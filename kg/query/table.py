"""Plain-text tables of query results, sized for where they go.

Off a terminal (a file, a pipe) nothing is cut: whole values in aligned columns. On a terminal the table
fits its width: the widest text columns are shortened first (with "…"), identifier columns (IRIs, DOIs)
never; when something was shortened the table ends with a one-line hint naming ``--wide``. Where the output
goes is read from the stream, or forced with ``KG_TERMINAL=1`` / ``KG_TERMINAL=0``; the terminal's width
comes from ``shutil.get_terminal_size`` (which reads ``COLUMNS`` first).
"""

from __future__ import annotations

import os
import re
import shutil
from typing import IO

GAP = 2  # spaces between columns
MIN_TEXT = 8  # a shortened text column keeps at least this many characters (or its header's)
_DOI = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)?10\.[0-9]{4,9}/\S+$", re.I)
HINT = "(values shortened to fit the terminal; --wide shows them whole)"


def terminal_width(stream: IO[str]) -> int | None:
    """The width to fit a table in: the terminal's, or None (no limit) when ``stream`` is not a terminal."""
    forced = os.environ.get("KG_TERMINAL", "")
    on_terminal = forced == "1" or (forced != "0" and hasattr(stream, "isatty") and stream.isatty())
    return shutil.get_terminal_size().columns if on_terminal else None


def is_identifier(text: str, is_iri: bool) -> bool:
    """A value a reader copies whole: an IRI or a DOI."""
    return is_iri or bool(_DOI.match(text))


def table(columns: list[str], rows: list[list[str]], ident: list[bool], width: int | None) -> str:
    """``rows`` (one text per column) under ``columns``, aligned; ``ident[i]`` marks column i as holding
    identifiers (never shortened). With ``width`` None nothing is cut; otherwise the widest text columns are
    shortened, one character at a time, until the table fits or every text column is at its least width."""
    if not columns:
        return "(no columns)\n"
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    least = [w if ident[i] else min(w, max(MIN_TEXT, len(columns[i]))) for i, w in enumerate(widths)]
    full = list(widths)
    if width is not None:
        budget = width - GAP * (len(columns) - 1)
        while sum(widths) > budget:
            shrinkable = [i for i in range(len(widths)) if widths[i] > least[i]]
            if not shrinkable:
                break
            i = max(shrinkable, key=lambda j: (widths[j], -j))
            widths[i] -= 1
    shortened = any(w < f for w, f in zip(widths, full, strict=True))

    def fit(text: str, w: int) -> str:
        return text if len(text) <= w else text[: max(w - 1, 0)] + "…"

    gap = " " * GAP
    lines = [gap.join(fit(c, w).ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines.append(gap.join("-" * w for w in widths))
    lines += [gap.join(fit(t, w).ljust(w) for t, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    if shortened:
        lines.append(HINT)
    return "\n".join(lines) + "\n"

"""The answer to the headline question as a terminal shows it (a stored query with ``#+ sides:``): a caption that
names each side and its papers, the rows grouped by tool, and a closing line naming the tools cited by both sides.

Only a table on a terminal looks like this (``kg.query.run.answer`` reads the sides only for one); csv, tsv, json,
markdown and a table written to a file keep the query's columns. On the terminal the per-side columns of
``tools-cited-by-both`` (``side_a_papers`` and ``side_a_titles``) are one column named after the side: the count,
then the titles one a line; the ``side`` column of ``tools-cited-by-profiling-and-compiler`` says ``A`` or ``B``,
which the caption names.
"""

from __future__ import annotations

from typing import IO

from ..infra.text import plural, printable
from .output import Grid, count_line, grid, page_rows, table, wrapped
from .results import Answer, Cell, Side

CAPTION_PAPERS = 3  # the titles the caption lists for a side (then how many more)
# what a terminal leaves out of the headline's rows when they do not fit whole (with the *_iri columns; the line
# under the table names them): the tool's category, the citing paper's DOI (its title is there) and the details
# of the recognition beside its method
LESS = ("category", "doi", "key", "recognition_score", "matched")


def write_headline(answer: Answer, out: IO[str], width: int | None, offset: int = 0) -> None:
    """The headline answer (``answer.sides`` set): caption, the rows grouped by tool within ``width`` (None:
    whole), the row count, what was shortened, and the closing line."""
    assert answer.sides is not None
    rows, more = page_rows(answer)
    columns = answer.columns
    g = by_side(grid(columns, rows, answer.lists), columns, answer.sides)
    tools = grouped(g, columns, rows)
    out.write(caption(answer.sides, width) + "\n")
    text, fit = table(g, width)
    out.write(text)
    out.write(wrapped(count_line(len(rows), more, offset), width))
    if (note := fit.note()) is not None:
        out.write(wrapped(note, width))
    out.write(wrapped(closing(tools, more or answer.partial), width))


def caption(sides: tuple[Side, Side], width: int | None) -> str:
    """Each side, its topic and how many papers, then the first of their titles (cut to ``width``).

    >>> print(caption((Side("A", "Profiling", ("P1", "P2")), Side("B", "Compilers", ())), None), end="")
    side A, Profiling: 2 papers
      P1
      P2
    side B, Compilers: no papers
    """
    out = []
    for side in sides:
        n = len(side.papers)
        out.append(wrapped(f"side {side.letter}, {printable(side.label)}: {plural(n, 'paper') if n else 'no papers'}",
                           width))
        out += [clipped("  " + printable(t), width) + "\n" for t in side.papers[:CAPTION_PAPERS]]
        if n > CAPTION_PAPERS:
            out.append(f"  and {n - CAPTION_PAPERS} more\n")
    return "".join(out)


def clipped(text: str, width: int | None) -> str:
    """``text`` cut with "…" to ``width`` cells (None: whole)."""
    if width is None:
        return text
    from rich.text import Text
    t = Text(text)
    t.truncate(max(width, 1), overflow="ellipsis")
    return t.plain


def by_side(g: Grid, columns: list[str], sides: tuple[Side, Side]) -> Grid:
    """``g`` with the sides named: ``side_X_papers`` and ``side_X_titles`` as one column headed with side X's label
    (the count, then the titles one a line), and a ``side`` column's labels as the sides' letters."""
    headers, cells, ident, optional = list(g.headers), [list(r) for r in g.cells], list(g.ident), list(g.optional)
    for side in sides:
        x = side.letter.lower()
        if f"side_{x}_papers" not in headers or f"side_{x}_titles" not in headers:
            continue
        p, t = headers.index(f"side_{x}_papers"), headers.index(f"side_{x}_titles")
        for r in cells:
            count = r[p][0]
            titles = [line for line in r[t] if line]
            indent = " " * (len(count) + 1)
            r[p] = [f"{count} {titles[0]}" if titles else count] + [indent + line for line in titles[1:]]
            del r[t]
        headers[p], ident[p] = printable(side.label), False
        for lst in (headers, ident, optional):
            del lst[t]
    optional = [o or h in LESS for h, o in zip(headers, optional, strict=True)]
    if "side" in columns and sides[0].label != sides[1].label:
        s = columns.index("side")
        letters = {printable(side.label): side.letter for side in sides}
        for r in cells:
            r[s] = [letters.get(r[s][0], r[s][0])]
    return Grid(headers, cells, ident, optional, set(g.ends))


def grouped(g: Grid, columns: list[str], rows: list[list[Cell]]) -> list[str]:
    """Group ``g``'s rows by tool (a blank line between groups; within one, a value that repeats the row above's
    is left blank, from the left up to the first that differs) and the tools, most citing papers first (then in
    the rows' order): ``side_a_papers`` + ``side_b_papers``, or the distinct ``doi`` values of its rows."""
    if "tool" not in columns:
        return []
    tool = columns.index("tool")
    key_at = [tool] + ([columns.index("tool_iri")] if "tool_iri" in columns else [])
    keys = [tuple(r[i] for i in key_at) for r in rows]
    names: dict[tuple, str] = {}
    papers: dict[tuple, set[str]] = {}
    counts: dict[tuple, int] = {}
    counted = [columns.index(c) for c in ("side_a_papers", "side_b_papers") if c in columns]
    doi = columns.index("doi") if "doi" in columns else None
    for key, row in zip(keys, rows, strict=True):
        names.setdefault(key, (row[tool] or ("", "", None, None))[1])
        if doi is not None and (d := row[doi]) is not None:
            papers.setdefault(key, set()).add(d[1])
        counts[key] = counts.get(key, 0) + sum(int(c[1]) for i in counted if (c := row[i]) is not None
                                               and c[1].isdigit())
    shown = [list(r) for r in g.cells]
    for n in range(len(rows)):
        if n + 1 == len(rows) or keys[n + 1] != keys[n]:
            g.ends.add(n)
        else:
            nxt = g.cells[n + 1]
            for i in range(len(nxt)):
                if shown[n + 1][i] != shown[n][i]:
                    break
                nxt[i] = [""]
    first = {k: n for n, k in enumerate(names)}
    return [printable(names[k]) for k in sorted(names, key=lambda k: (-counts[k] - len(papers.get(k, ())), first[k]))]


def closing(tools: list[str], more: bool) -> str:
    """The line that ends the headline answer: how many tools both sides cite, and which (``more``: of the rows
    shown, when the answer has others).

    >>> closing(["PyTorch", "TVM", "XLA"], False)
    '3 tools cited by both sides: PyTorch, TVM and XLA'
    """
    if not tools:
        return "no tool is cited by both sides"
    names = tools[0] if len(tools) == 1 else ", ".join(tools[:-1]) + " and " + tools[-1]
    where = " in these rows" if more else ""
    return f"{plural(len(tools), 'tool')} cited by both sides{where}: {names}"

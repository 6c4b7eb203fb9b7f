"""The catalogue of stored queries as ``kg queries`` shows it: one line a query, a query described (parameters,
columns, an example command), and the same as JSON."""

from __future__ import annotations

import shlex
import sys
import textwrap
from typing import Any

from .output import terminal_width
from .stored import Param, StoredQuery


def type_text(p: Param) -> str:
    """A parameter's type as its header writes it: ``iri(tool|work)``, ``integer(1..)``, ``string(a|b)``."""
    if p.kinds:
        return f"{p.type}({'|'.join(p.kinds)})"
    if p.low is not None or p.high is not None:
        return f"{p.type}({p.low or ''}..{p.high or ''})"
    if p.allowed:
        return f"{p.type}({'|'.join(p.allowed)})"
    return p.type


def example_command(q: StoredQuery) -> str:
    """A command that runs ``q`` with every parameter at its default, written out."""
    args = "".join(f" -p {p.name}={shlex.quote(p.default or '')}" for p in q.params)
    return f"kg query {q.name}{args}"


def described(q: StoredQuery) -> dict[str, Any]:
    """What ``kg queries -f json`` says of a query: name, description, parameters (type, default, allowed
    values, range, the kinds of bare ids an IRI takes), columns, list columns and an example command."""
    return {"name": q.name, "description": q.description,
            "params": [{"name": p.name, "type": p.type, "spec": type_text(p), "default": p.default,
                        "description": p.description, "kinds": list(p.kinds), "min": p.low, "max": p.high,
                        "allowed": list(p.choices) if p.allowed else []} for p in q.params],
            "columns": [{"name": c, "description": d} for c, d in zip(q.returns, q.docs, strict=True)],
            "lists": list(q.lists), "example": example_command(q)}


def describe_text(q: StoredQuery) -> str:
    """``kg queries NAME``: the query's description, parameters, columns and an example command."""
    out = [q.name, "  " + q.description, ""]
    if q.params:
        out.append("parameters:")
        rows = [(p.name, type_text(p), f"default {p.default}", p.description) for p in q.params]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        out += ["  " + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths, strict=True)) + "  " + r[3] for r in rows]
        allowed = [(p.name, p.choices) for p in q.params if p.allowed]
        out += [f"  {name}: one of {', '.join(values)}" for name, values in allowed]
        out.append("")
    out.append("columns:")
    width = max(map(len, q.returns))
    out += [f"  {c.ljust(width)}  {d}" for c, d in zip(q.returns, q.docs, strict=True)]
    out += ["", "example:", "  " + example_command(q)]
    return "\n".join(out) + "\n"


NARROWEST = 30  # below this many columns beside the names, a description goes under its name


def listing(queries: list[StoredQuery], width: int | None | str = "terminal") -> str:
    """``kg queries``: each query's name and description, aligned; the descriptions wrapped at word boundaries to
    ``width`` columns (by default the terminal's, when standard output is one; None: one line a query)."""
    if width == "terminal":
        width = terminal_width(sys.stdout)
    names = max((len(q.name) for q in queries), default=0)
    if not isinstance(width, int):
        return "".join(f"{q.name.ljust(names)}  {q.description}\n" for q in queries)
    beside = width - names - 2 >= NARROWEST
    indent = " " * (names + 2 if beside else 4)
    out = []
    for q in queries:
        lines = textwrap.wrap(q.description, max(width - len(indent), 1), break_long_words=False,
                              break_on_hyphens=False) or [""]
        if beside:
            out.append(f"{q.name.ljust(names)}  {lines[0]}".rstrip())
            out += [indent + line for line in lines[1:]]
        else:
            out += [q.name, *(indent + line for line in lines)]
    return "\n".join(out) + "\n"

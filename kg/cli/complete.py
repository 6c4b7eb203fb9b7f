"""Shell completion (click's ``shell_complete``) for what a person types: stored query names, their parameter names
(``-p NAME=``), and the tool and topic ids and allowed values parameters and ``kg describe`` take. Enabled with
``eval "$(_KG_COMPLETE=bash_source kg)"`` (docs/usage.md); commands and options click completes itself."""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem

from ..query.stored import _tool_ids, _topic_ids, stored_queries


def query_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The stored queries whose names start with ``incomplete``, with their descriptions as help."""
    return [CompletionItem(name, help=q.description) for name, q in stored_queries().items()
            if name.startswith(incomplete)]


def query_params(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``-p NAME=VALUE``: the parameter names of the query named before (``NAME=``), then, after ``=``, the tool
    and topic ids or the allowed values the parameter takes."""
    named = ctx.params.get("name") or next((a for a in ctx.args if not a.startswith("-")), "")  # (left unparsed
    query = stored_queries().get(named)  # while -p waits for its value)
    if query is None:
        return []
    name, eq, value = incomplete.partition("=")
    if not eq:
        return [CompletionItem(f"{p.name}=", help=p.description) for p in query.params if p.name.startswith(name)]
    found = next((p for p in query.params if p.name == name), None)
    if found is None:
        return []
    values = list(found.choices) if found.allowed else \
        [*(_tool_ids() if "tool" in found.kinds else ()), *(_topic_ids() if "topic" in found.kinds else ())]
    return [CompletionItem(f"{name}={v}") for v in values if v.startswith(value)]


def targets(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``kg describe``: ``tool:ID`` and ``topic:ID`` (a DOI or an IRI is typed or pasted)."""
    every = [*(f"tool:{t}" for t in _tool_ids()), *(f"topic:{t}" for t in _topic_ids())]
    return [CompletionItem(t) for t in every if t.startswith(incomplete)]

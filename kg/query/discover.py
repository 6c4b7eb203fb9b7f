"""What questions can name: the topic scheme (``kg topics``) and the tools (``kg tools``), as result tables.

The rows come from the data files (kg/data/topics.ttl, kg/data/tools.json) and, for the tools, from the answer of
the stored query ``tools`` on a graph: how many input works cite each tool, and the tools the references name
that no catalogue holds. Both are ``Results``, so every output format of ``kg query`` renders them.
"""

from __future__ import annotations

from ..errors import UsageError
from .output import XSD_NS, csv_text
from .results import Cell, Results
from .stored import closest, tool_categories

TOPIC_COLUMNS = ["label", "id", "broader"]


def _text(value: str) -> Cell:
    return ("literal", value, None, None) if value else None


def topic_table() -> Results:
    """The topic scheme, one row a concept (its label, id and broader concept's id), in tree order: each concept
    after its broader one, siblings by id.

    Example:

    >>> [csv_text(c) for c in topic_table().rows[0]]
    ['Computing', 'computing', '']
    """
    from ..refs.topics import concepts
    under: dict[str, list] = {}
    for c in concepts():
        under.setdefault(c.ancestors[0] if c.ancestors else "", []).append(c)
    rows: list[list[Cell]] = []

    def walk(parent: str) -> None:
        for c in sorted(under.get(parent, []), key=lambda c: c.id):
            rows.append([_text(c.label), _text(c.id), _text(parent)])
            walk(c.id)
    walk("")
    return Results(list(TOPIC_COLUMNS), rows)


def tool_table(category: str | None, found: Results | None) -> Results:
    """The tools of the catalogue (kg/data/tools.json; named artifacts such as benchmark suites left out), one row a
    tool: its name, category and id (what ``-p target=`` takes). With ``found``, the answer of the stored query
    ``tools`` on a graph, also how many input works cite each tool, most cited first, and the tools of that graph
    no catalogue here holds (named by its references, or from a ``--tools`` file). ``category`` keeps one
    category; one that neither the catalogue nor the graph knows is a UsageError listing those there are."""
    from ..refs.tools import Catalogue
    ids: dict[str, tuple[str, str]] = {t.id: (t.name, t.category) for t in Catalogue.load().tools.values()
                                       if t.kind == "tool"}
    counts: dict[str, int] = {}
    for got in _dicts(found) if found is not None else []:
        tid = got["tool_iri"].rsplit("/tool/", 1)[-1]
        ids[tid] = (got["tool"], got["category"])  # (what the graph says: a --tools file may have changed it)
        counts[tid] = int(got["citing_works"])
    if category is not None:
        known = sorted(set(tool_categories()) | {cat for _name, cat in ids.values()})
        if category not in known:
            near = closest(category, known)
            raise UsageError(f"--category {category!r} is no tool category; "
                             + (f"did you mean {' or '.join(map(repr, near))}? " if near else "")
                             + f"give one of: {', '.join(known)}")
        ids = {tid: v for tid, v in ids.items() if v[1] == category}
    order = sorted(ids, key=lambda tid: (-counts.get(tid, 0), ids[tid][0].lower(), tid))
    if found is None:
        return Results(["tool", "category", "id"], [[_text(ids[t][0]), _text(ids[t][1]), _text(t)] for t in order])
    return Results(["tool", "category", "citing_works", "id"],
                   [[_text(ids[t][0]), _text(ids[t][1]), _count(counts.get(t, 0)), _text(t)] for t in order])


def _dicts(res: Results) -> list[dict[str, str]]:
    return [{c: csv_text(v) for c, v in zip(res.columns, row, strict=True)} for row in res.rows]


def _count(n: int) -> Cell:
    return ("literal", str(n), XSD_NS + "integer", None)

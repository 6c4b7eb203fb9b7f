"""Graph backends for queries: Oxigraph in process (default), loaded from N-Quads or other RDF files."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from .errors import InputError, QueryError
from .queries import Cell, Results

_FORMATS = {
    ".nq": ox.RdfFormat.N_QUADS, ".nt": ox.RdfFormat.N_TRIPLES, ".ttl": ox.RdfFormat.TURTLE,
    ".trig": ox.RdfFormat.TRIG, ".rdf": ox.RdfFormat.RDF_XML, ".xml": ox.RdfFormat.RDF_XML,
    ".owl": ox.RdfFormat.RDF_XML, ".jsonld": ox.RdfFormat.JSON_LD, ".json": ox.RdfFormat.JSON_LD,
}


def rdf_format(path: Path) -> "ox.RdfFormat":
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(str(path), f"has an unknown RDF extension {path.suffix!r}",
                         "use .nq, .nt, .ttl, .trig, .rdf or .jsonld")
    return fmt


def load_store(paths: list[Path]) -> ox.Store:
    """An in-memory Oxigraph store holding every quad of ``paths``."""
    store = ox.Store()
    for path in paths:
        try:
            fmt = rdf_format(path)
            with open(path, "rb") as fh:
                store.bulk_load(fh, format=fmt)
        except FileNotFoundError:
            raise InputError(str(path), "does not exist", "run 'kg build' first or give a graph file") from None
        except (SyntaxError, ValueError, OSError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise InputError(str(path), f"is not a readable RDF graph ({first})", "rebuild it or check the format") from None
    return store


def _cell(term: object) -> Cell:
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return ("uri", term.value, None, None)
    if isinstance(term, ox.BlankNode):
        return ("bnode", term.value, None, None)
    if isinstance(term, ox.Literal):
        dt = term.datatype.value
        lang = term.language
        if lang:
            return ("literal", term.value, None, lang)
        return ("literal", term.value, None if dt.endswith("#string") else dt, None)
    return ("literal", str(term), None, None)


def run_query(store: ox.Store, text: str) -> Results:
    """Run SPARQL on the union of all graphs; SELECT, ASK, CONSTRUCT and DESCRIBE."""
    try:
        result = store.query(text, use_default_graph_as_union=True)
    except SyntaxError as e:
        raise QueryError(f"the query is not valid SPARQL ({str(e).splitlines()[0]}); fix the query text") from None
    except (OSError, ValueError, RuntimeError) as e:
        raise QueryError(f"the query failed ({e})") from None
    if isinstance(result, ox.QueryBoolean):
        return Results([], [], boolean=bool(result))
    if isinstance(result, ox.QuerySolutions):
        columns = [v.value for v in result.variables]
        rows = [[_cell(sol[c]) for c in columns] for sol in result]
        return Results(columns, rows)
    triples = sorted(f"{t} .\n" for t in result)
    return Results([], [], graph_nt="".join(triples))

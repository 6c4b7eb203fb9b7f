"""What every mapper needs besides the work: the IRI minter, the type table as terms, the tool version."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..rdf.ids import DEFAULT_BASE, Minter
from ..rdf.vocab import ALL_NAMESPACES, PREFIXES, ClosedNamespace
from ..refs.tools import Catalogue
from ..resources import type_table

_BY_PREFIX: dict[str, ClosedNamespace] = {
    p: ns for p, base in PREFIXES.items() for ns in ALL_NAMESPACES if ns.base == base
}


def curie(term: str) -> str:
    """``"fabio:JournalArticle"`` -> its IRI token, through the closed namespaces (a typo raises)."""
    prefix, local = term.split(":", 1)
    return _BY_PREFIX[prefix][local]


@dataclass(frozen=True)
class TypeInfo:
    expression: str | None
    work_level: str | None
    schema: tuple[str, ...]
    extra: tuple[str, ...]
    container: str
    isbn_on_work: bool


def _load_types() -> tuple[dict[str, TypeInfo], dict[str, tuple[str, ...]]]:
    table = type_table()
    types = {
        name: TypeInfo(
            expression=curie(t["fabio"]) if t.get("fabio") else None,
            work_level=curie(t["work"]) if t.get("work") else None,
            schema=tuple(curie(c) for c in t["schema"]),
            extra=tuple(curie(c) for c in t.get("extra", ())),
            container=t["container"],
            isbn_on_work=t["isbn_on"] == "work",
        )
        for name, t in table["types"].items()
    }
    containers = {
        name: tuple(curie(c) for c in [t["fabio"], *t["schema"]]) for name, t in table["containers"].items()
    }
    return types, containers


@dataclass(frozen=True)
class Context:
    """Immutable mapping context; build one per run and share it across records and workers."""

    minter: Minter = field(default_factory=Minter)
    version: str = __version__
    types: dict[str, TypeInfo] = field(default_factory=lambda: _load_types()[0])
    containers: dict[str, tuple[str, ...]] = field(default_factory=lambda: _load_types()[1])

    catalogue: Catalogue | None = None
    topic_overrides: dict[str, list[str]] = field(default_factory=dict)
    topic_source: str | None = None  # the --topics file, named in the evidence of its assignments
    topic_lines: dict[str, str] = field(default_factory=dict)  # DOI -> where the --topics file names it

    @classmethod
    def create(cls, base: str = DEFAULT_BASE, tools: list[Path] | None = None,
               topics: Path | None = None) -> "Context":
        """A context with the built-in type table and tool catalogue, plus user catalogues and topic overrides."""
        from ..refs.topics import load_overrides, override_lines

        types, containers = _load_types()
        return cls(Minter(base), __version__, types, containers, Catalogue.load(tools),
                   load_overrides(topics) if topics else {}, str(topics) if topics else None,
                   override_lines(topics) if topics else {})

    def type_info(self, wtype: str, subtype: str | None) -> TypeInfo:
        if subtype and f"{wtype}/{subtype}" in self.types:
            return self.types[f"{wtype}/{subtype}"]
        return self.types.get(wtype) or self.types["other"]


@dataclass(frozen=True)
class ContextSpec:
    """What makes a ``Context``, small enough to send to worker processes: the base IRI, the user tool
    catalogues and the --topics file."""

    base: str = DEFAULT_BASE
    tools: tuple[Path, ...] | None = None
    topics: Path | None = None

    def create(self) -> Context:
        return Context.create(self.base, tools=list(self.tools) if self.tools is not None else None,
                              topics=self.topics)

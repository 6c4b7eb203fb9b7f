"""Deterministic IRI minting from stable keys; every minted node lives under the base IRI.

Patterns (``{base}`` defaults to ``https://w3id.org/crossref-kg/``; ``{doi}`` is the lower-cased,
percent-encoded DOI): a work is ``https://doi.org/{doi}``; its parts are ``{base}doi/{doi}/<part>/<n>``;
shared things are keyed by their identifier (``{base}person/orcid/{orcid}``, ``{base}org/ror/{id}``,
``{base}funder/doi/{doi}``, ``{base}venue/issn/{issn}``) or, lacking one, by a hash of their normalised name.
"""

from __future__ import annotations

import hashlib
import re

from ..errors import UsageError
from .terms import encode_segment, is_valid_iri

DEFAULT_BASE = "https://w3id.org/crossref-kg/"
DOI_RESOLVER = "https://doi.org/"
SHARED_GRAPHS = ("facts", "knowledge", "tools", "topics")  # graphs of what many records share: {base}graph/{name}
_WORK = "<" + DOI_RESOLVER
_WS = re.compile(r"\s+")


def name_key(*parts: str | None) -> str:
    """A 16-hex-digit hash of case- and space-folded parts (stable across runs and machines)."""
    text = "\x1f".join(_WS.sub(" ", p).strip().casefold() for p in parts if p)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def check_base(base: str) -> str:
    """The base IRI, ending in '/' or '#'; raises UsageError when it is no absolute IRI."""
    if not base.endswith(("/", "#")):
        base += "/"
    if not is_valid_iri(base) or "<" in base or " " in base:
        raise UsageError(f"--base {base!r} is not an absolute IRI")
    return base


class Minter:
    """Mints IRI tokens (``<...>``) under one base."""

    def __init__(self, base: str = DEFAULT_BASE) -> None:
        self.base = check_base(base)

    def node(self, *segments: str) -> str:
        return "<" + self.base + "/".join(encode_segment(s) for s in segments) + ">"

    @staticmethod
    def doi(doi: str) -> str:
        """The work IRI for a DOI: https://doi.org/ + lower-cased DOI, unsafe characters percent-encoded."""
        return "<" + DOI_RESOLVER + encode_segment(doi.lower()) + ">"

    @staticmethod
    def doi_of(token: str) -> str | None:
        """The DOI of a work IRI token as ``doi`` minted it (lower-cased, percent-encoded); None for another IRI."""
        return token[len(_WORK):-1] if token.startswith(_WORK) else None

    @staticmethod
    def child(node: str, *segments: str) -> str:
        """A node under another node: ``child("<x/ref/1>", "agent")`` -> ``<x/ref/1/agent>``."""
        # (ASCII letters and digits need no encoding: the common case skips the quoting)
        return node[:-1] + "".join("/" + (s if s.isascii() and s.isalnum() else encode_segment(s))
                                   for s in segments) + ">"

    def part(self, doi: str, *segments: str) -> str:
        """A node that belongs to one work record (its roles, references, licences ...)."""
        return self.node("doi", doi.lower(), *segments)

    def graph(self, doi: str) -> str:
        """The named graph that holds one record's triples in quad formats."""
        return self.node("graph", doi.lower())

    def shared_graph(self, name: str) -> str:
        """One of the ``SHARED_GRAPHS`` (``facts``, ``knowledge``, ``tools``, ``topics``)."""
        return self.node("graph", name)

    def shared_graphs(self) -> set[str]:
        """Every shared graph."""
        return {self.shared_graph(n) for n in SHARED_GRAPHS}

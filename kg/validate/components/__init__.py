"""The constraint components of SHACL Core the compiled engine (``kg.validate.core``) evaluates, a module per
family as pySHACL keeps them: each component's parameters, check and generic message side by side.

A shape's checks are made in the order of ``COMPONENTS`` (its results come in that order, as pySHACL's do)."""

from __future__ import annotations

from .base import Compiling, Component
from .cardinality import MAX_COUNT, MIN_COUNT
from .logical import AND, NOT, OR
from .other import HAS_VALUE, IN
from .shape_based import NODE, QUALIFIED
from .string_based import PATTERN, UNIQUE_LANG
from .value_range import MAX_EXCLUSIVE, MAX_INCLUSIVE, MIN_EXCLUSIVE, MIN_INCLUSIVE
from .value_type import CLASS, DATATYPE, NODE_KIND

COMPONENTS: tuple[Component, ...] = (
    MIN_COUNT, MAX_COUNT, CLASS, DATATYPE, NODE_KIND, IN, HAS_VALUE, PATTERN, UNIQUE_LANG,
    MIN_INCLUSIVE, MAX_INCLUSIVE, MIN_EXCLUSIVE, MAX_EXCLUSIVE, NODE, NOT, AND, OR, QUALIFIED,
)
PARAMETERS = frozenset(p for c in COMPONENTS for p in c.parameters)  # every parameter the components read

__all__ = ["COMPONENTS", "PARAMETERS", "Compiling", "Component"]

"""SHACL validation: the compiled engine, Oxigraph SPARQL checks and pySHACL, the reference.

The face of the package: what callers outside ``kg/validate/`` import (``from kg.validate import validate``).
"""

from .engine import ENGINE_ENV, Declined, data_graph, validate, validate_lines
from .render import render_json, render_text, render_turtle, see_all, summary, violation_message
from .report import Result, ValidationReport
from .shapes import load_shapes, shape_words, shapes_conform_to_shacl_shacl
from .shards import in_shards, validate_collected, validate_file, validate_graph_lines, validate_sharded

__all__ = [
    "ENGINE_ENV", "Declined", "ValidationReport", "Result", "data_graph", "in_shards", "load_shapes", "render_json",
    "render_text", "render_turtle", "see_all", "shape_words", "shapes_conform_to_shacl_shacl", "summary", "validate",
    "validate_collected", "validate_file", "validate_graph_lines", "validate_lines", "validate_sharded",
    "violation_message",
]

"""Building the graph: the in-memory reference pipeline and the two-pass streaming driver."""
from .memory import build_graph
from .stream import build_stream

__all__ = ["build_graph", "build_stream"]

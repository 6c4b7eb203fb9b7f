"""Building the graph: the in-memory reference pipeline, the two-pass streaming driver, and ``run``, the one build
(local, workers or cluster) that writes, validates, exports, stores and commits."""
from .memory import build_graph
from .stream import build_stream

__all__ = ["build_graph", "build_stream"]

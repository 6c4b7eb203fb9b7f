"""``kg report``: the corpus at a glance as one self-contained, offline HTML file (and, if asked, its networks as
GraphML and DOT). Every number comes from a stored query (``kg query``) on one source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import KgError
from ..infra.net import DEFAULT_MAX_BYTES
from ..infra.outputs import atomic_writer
from ..validate.files import validate_graphs
from .network import to_dot, to_graphml
from .source import ReportSource

VALIDATE_UP_TO = 32_000_000  # validate graph files of up to this many bytes for the summary (else say how)


@dataclass
class Written:
    output: Path
    bytes: int
    works: int
    graphs: list[Path]


def write_report(output: Path, graphs: list[Path] | None = None, store: Path | None = None,
                 endpoint: str | None = None, graphs_dir: Path | None = None, validate: str = "auto",
                 timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES, pairs: int = 4,
                 default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = ()) -> Written:
    """Write the report of one source to ``output`` (atomically) and, with ``graphs_dir``, its networks.

    ``validate``: auto (the validation summary for graph files up to VALIDATE_UP_TO bytes), yes, or no.
    ``pairs``: the topic pairs the matrix offers (the default pair first; all from the same two queries).
    ``default_graphs``, ``named_graphs``: with ``endpoint``, the graphs it answers over (SPARQL 1.1 Protocol)."""
    from .data import gather
    from .page import Page
    src = ReportSource(graphs, store, endpoint, timeout, max_bytes, default_graphs, named_graphs)
    corpus = gather(src, pairs)
    report, note = None, ""
    files = src.local_files
    if validate == "no":
        note = "Not validated (--validate no); run 'kg validate' for the summary."
    elif files is None:
        note = "A store or an endpoint is not validated here; run 'kg validate' on a graph file."
    elif validate == "auto" and sum(f.stat().st_size for f in files) > VALIDATE_UP_TO:
        note = (f"Not validated: the graph is larger than {VALIDATE_UP_TO:,} bytes (pass --validate yes, or run "
                "'kg validate --jobs N').")
    else:
        report = validate_graphs(files)
    page = Page(corpus, src, report, note)
    html = page.html().encode("utf-8")
    with atomic_writer(output, binary=True) as fh:
        fh.write(html)
    written = []
    if graphs_dir is not None:
        if Path(graphs_dir).exists() and not Path(graphs_dir).is_dir():
            raise KgError(f"{graphs_dir}: is not a folder; give --graphs a folder to write the networks into")
        for net in page.networks:
            for ext, text in (("graphml", to_graphml(net)), ("dot", to_dot(net))):
                path = Path(graphs_dir) / f"{net.name}.{ext}"
                with atomic_writer(path) as fh:
                    fh.write(text)
                written.append(path)
    return Written(Path(output), len(html), corpus.stats.get("works", 0), written)

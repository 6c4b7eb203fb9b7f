"""The report's networks: nodes and weighted edges, a seeded force-directed layout, and GraphML / DOT.

The layout is Fruchterman-Reingold in plain Python with a seeded random start, on nodes and edges taken in
sorted order, so the same graph always gets the same picture (and the same bytes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from random import Random
from xml.sax.saxutils import escape, quoteattr


@dataclass
class Node:
    id: str
    label: str
    size: float = 1.0  # e.g. citing papers
    group: str = ""  # e.g. tool category, "input" or "cited"
    href: str = ""  # an anchor of the report


@dataclass
class Network:
    name: str
    title: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str], float] = field(default_factory=dict)  # (a, b) -> weight
    directed: bool = False

    def add_edge(self, a: str, b: str, weight: float = 1.0) -> None:
        if not self.directed and b < a:
            a, b = b, a
        self.edges[(a, b)] = self.edges.get((a, b), 0.0) + weight

    def trimmed(self, most_nodes: int, most_edges: int | None = None) -> "Network":
        """The ``most_nodes`` largest nodes (size, then degree, then id) and the edges among them (the
        ``most_edges`` heaviest, if given: a picture of every edge of a dense graph is a hairball)."""
        degree: dict[str, float] = {}
        for (a, b), w in self.edges.items():
            degree[a] = degree.get(a, 0) + w
            degree[b] = degree.get(b, 0) + w
        keep = sorted(self.nodes, key=lambda n: (-self.nodes[n].size, -degree.get(n, 0), n))[:most_nodes]
        kept = set(keep)
        out = Network(self.name, self.title, {n: self.nodes[n] for n in sorted(kept)}, directed=self.directed)
        among = sorted(((e, w) for e, w in self.edges.items() if e[0] in kept and e[1] in kept),
                       key=lambda ew: (-ew[1], ew[0]))
        out.edges = dict(sorted(among[:most_edges] if most_edges is not None else among))
        if most_edges is not None and out.edges:  # a node whose edges were all dropped would float off alone
            linked = {n for e in out.edges for n in e}
            out.nodes = {n: v for n, v in out.nodes.items() if n in linked}
        return out


def layout(net: Network, seed: int = 29, iterations: int = 150) -> dict[str, tuple[float, float]]:
    """Positions in the unit square [0, 1]^2, the same for the same graph."""
    ids = sorted(net.nodes)
    n = len(ids)
    if n == 0:
        return {}
    if n == 1:
        return {ids[0]: (0.5, 0.5)}
    rnd = Random(seed)
    index = {v: i for i, v in enumerate(ids)}
    pos = [[rnd.random(), rnd.random()] for _ in ids]
    edges = [(index[a], index[b], w) for (a, b), w in sorted(net.edges.items()) if a in index and b in index and a != b]
    k = math.sqrt(1.0 / n)
    temp = 0.1
    cool = temp / (iterations + 1)
    for _ in range(iterations):
        disp = [[0.0, 0.0] for _ in ids]
        for i in range(n):
            xi, yi = pos[i]
            for j in range(i + 1, n):
                dx, dy = xi - pos[j][0], yi - pos[j][1]
                d2 = dx * dx + dy * dy or 1e-9
                f = k * k / d2
                disp[i][0] += dx * f
                disp[i][1] += dy * f
                disp[j][0] -= dx * f
                disp[j][1] -= dy * f
        for i, j, w in edges:
            dx, dy = pos[i][0] - pos[j][0], pos[i][1] - pos[j][1]
            d = math.sqrt(dx * dx + dy * dy) or 1e-9
            f = d * min(1.0 + math.log1p(w), 4.0) / k
            disp[i][0] -= dx * f
            disp[i][1] -= dy * f
            disp[j][0] += dx * f
            disp[j][1] += dy * f
        for i in range(n):
            # a little gravity keeps unconnected nodes on the page
            dx, dy = disp[i][0] - (pos[i][0] - 0.5) * 0.5, disp[i][1] - (pos[i][1] - 0.5) * 0.5
            d = math.sqrt(dx * dx + dy * dy) or 1e-9
            step = min(d, temp)
            pos[i][0] += dx / d * step
            pos[i][1] += dy / d * step
        temp -= cool
    xs, ys = [p[0] for p in pos], [p[1] for p in pos]
    x0, y0 = min(xs), min(ys)
    sx, sy = (max(xs) - x0) or 1.0, (max(ys) - y0) or 1.0
    return {v: ((pos[i][0] - x0) / sx, (pos[i][1] - y0) / sy) for v, i in index.items()}


def to_graphml(net: Network) -> str:
    """The network as GraphML (label, size and group as node data, weight as edge data)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
           '  <key id="label" for="node" attr.name="label" attr.type="string"/>',
           '  <key id="size" for="node" attr.name="size" attr.type="double"/>',
           '  <key id="group" for="node" attr.name="group" attr.type="string"/>',
           '  <key id="weight" for="edge" attr.name="weight" attr.type="double"/>',
           f'  <graph id={quoteattr(net.name)} edgedefault="{"directed" if net.directed else "undirected"}">']
    for nid in sorted(net.nodes):
        node = net.nodes[nid]
        out.append(f"    <node id={quoteattr(nid)}><data key=\"label\">{escape(node.label)}</data>"
                   f"<data key=\"size\">{node.size:g}</data><data key=\"group\">{escape(node.group)}</data></node>")
    for (a, b), w in sorted(net.edges.items()):
        out.append(f"    <edge source={quoteattr(a)} target={quoteattr(b)}><data key=\"weight\">{w:g}</data></edge>")
    out += ["  </graph>", "</graphml>", ""]
    return "\n".join(out)


def _dot_id(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(net: Network) -> str:
    """The network as Graphviz DOT."""
    arrow = "->" if net.directed else "--"
    out = [f"{'digraph' if net.directed else 'graph'} {_dot_id(net.name)} {{", f"  label={_dot_id(net.title)};"]
    for nid in sorted(net.nodes):
        node = net.nodes[nid]
        out.append(f"  {_dot_id(nid)} [label={_dot_id(node.label)}, width={0.3 + 0.1 * math.sqrt(node.size):.2f}, "
                   f"tooltip={_dot_id(f'{node.group}: {node.size:g}')}];")
    for (a, b), w in sorted(net.edges.items()):
        out.append(f"  {_dot_id(a)} {arrow} {_dot_id(b)} [weight={w:g}];")
    out += ["}", ""]
    return "\n".join(out)

"""Charts and network pictures as inline SVG, drawn here (no JavaScript charting library, nothing remote).

Every coordinate is rounded to one decimal, so the same data gives the same bytes.
"""

from __future__ import annotations

import math
from html import escape

from .network import Network, layout

# a colour-blind-safe qualitative palette (Okabe-Ito, then Tol's muted), then greys
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#332288", "#117733",
           "#882255", "#44AA99", "#999933", "#AA4499", "#88CCEE", "#DDCC77", "#661100")
OTHER = "#9a9a9a"


def colours(groups: list[str]) -> dict[str, str]:
    """A colour for each group, in the order given (most important first); the rest grey."""
    return {g: PALETTE[i] if i < len(PALETTE) else OTHER for i, g in enumerate(groups)}


def _f(x: float) -> str:
    s = f"{x:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _fit(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def legend(items: list[tuple[str, str]]) -> str:
    """An HTML legend: (label, colour)."""
    return '<ul class="legend">' + "".join(
        f'<li><span class="swatch" style="background:{c}"></span>{escape(label)}</li>' for label, c in items) + "</ul>"


def hbars(rows: list[tuple[str, float, str, str]], label_width: int = 200, width: int = 720,
          name: str = "chart") -> str:
    """A horizontal bar chart: (label, value, colour, href); the value is written at the end of each bar."""
    if not rows:
        return '<p class="empty">Nothing to draw.</p>'
    bar_h, gap = 18, 6
    height = len(rows) * (bar_h + gap) + gap
    top = max(v for _, v, _, _ in rows) or 1
    room = width - label_width - 50
    out = [f'<svg class="chart {escape(name)}" role="img" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" xmlns="http://www.w3.org/2000/svg">']
    for i, (label, value, colour, href) in enumerate(rows):
        y = gap + i * (bar_h + gap)
        w = max(room * value / top, 1)
        bar = (f'<rect x="{label_width}" y="{y}" width="{_f(w)}" height="{bar_h}" fill="{colour}" rx="2">'
               f'<title>{escape(label)}: {value:g}</title></rect>')
        text = (f'<text x="{label_width - 6}" y="{y + bar_h - 5}" text-anchor="end">'
                f'{escape(_fit(label, label_width // 7))}</text>')
        if href:
            out.append(f'<a href="{escape(href)}">{text}{bar}</a>')
        else:
            out.append(text + bar)
        out.append(f'<text x="{_f(label_width + w + 5)}" y="{y + bar_h - 5}" class="value">{value:g}</text>')
    out.append("</svg>")
    return "".join(out)


def columns(labels: list[str], series: list[tuple[str, list[float], str]], width: int = 720, height: int = 240,
            name: str = "columns") -> str:
    """Stacked columns: one column per label, one stacked part per series (name, values, colour)."""
    if not labels:
        return '<p class="empty">Nothing to draw.</p>'
    left, bottom, top_pad = 40, 40, 12
    totals = [sum(s[1][i] for s in series) for i in range(len(labels))]
    top = max(totals) or 1
    step = (width - left - 10) / len(labels)
    bar_w = max(min(step * 0.7, 48), 2)
    plot_h = height - bottom - top_pad
    out = [f'<svg class="chart {escape(name)}" role="img" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" xmlns="http://www.w3.org/2000/svg">']
    ticks = _ticks(top)
    for t in ticks:
        y = top_pad + plot_h - plot_h * t / top
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{_f(y)}" y2="{_f(y)}" class="grid"/>'
                   f'<text x="{left - 4}" y="{_f(y + 4)}" text-anchor="end" class="axis">{t:g}</text>')
    every = max(1, math.ceil(len(labels) / (width / 44)))
    for i, label in enumerate(labels):
        x = left + i * step + (step - bar_w) / 2
        y = top_pad + plot_h
        for sname, values, colour in series:
            v = values[i]
            if v <= 0:
                continue
            h = plot_h * v / top
            y -= h
            out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(bar_w)}" height="{_f(h)}" fill="{colour}">'
                       f'<title>{escape(label)}, {escape(sname)}: {v:g}</title></rect>')
        if i % every == 0:
            out.append(f'<text x="{_f(x + bar_w / 2)}" y="{height - bottom + 16}" text-anchor="middle" '
                       f'class="axis">{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def lines(labels: list[str], series: list[tuple[str, list[float | None], str, list[str]]], width: int = 720,
          height: int = 240, name: str = "lines") -> str:
    """Shares (0 to 1) over labels, one line per series (name, values, colour, each point's tooltip); a point is None
    where the series has no value, and the line breaks there."""
    if not labels or not series:
        return '<p class="empty">Nothing to draw.</p>'
    left, bottom, top_pad, right = 40, 40, 12, 24  # (room for the last label, centred on its point)
    step = (width - left - right) / max(len(labels) - 1, 1)
    plot_h = height - bottom - top_pad

    def x(i: int) -> float:
        return left + (i * step if len(labels) > 1 else (width - left - right) / 2)

    def y(v: float) -> float:
        return top_pad + plot_h - plot_h * v

    out = [f'<svg class="chart {escape(name)}" role="img" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" xmlns="http://www.w3.org/2000/svg">']
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{_f(y(t))}" y2="{_f(y(t))}" class="grid"/>'
                   f'<text x="{left - 4}" y="{_f(y(t) + 4)}" text-anchor="end" class="axis">{t:.0%}</text>')
    every = max(1, math.ceil(len(labels) / (width / 44)))
    for i, label in enumerate(labels):
        if i % every == 0:
            out.append(f'<text x="{_f(x(i))}" y="{height - bottom + 16}" text-anchor="middle" '
                       f'class="axis">{escape(label)}</text>')
    for sname, values, colour, tips in series:
        runs: list[list[int]] = [[]]
        for i, v in enumerate(values):
            if v is None:
                runs.append([])
            else:
                runs[-1].append(i)
        for run in runs:
            if len(run) > 1:
                points = " ".join(f"{_f(x(i))},{_f(y(values[i] or 0.0))}" for i in run)
                out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2">'
                           f"<title>{escape(sname)}</title></polyline>")
        for i, v in enumerate(values):
            if v is not None:
                out.append(f'<circle cx="{_f(x(i))}" cy="{_f(y(v))}" r="3.5" fill="{colour}">'
                           f"<title>{escape(tips[i])}</title></circle>")
    out.append("</svg>")
    return "".join(out)


def _ticks(top: float) -> list[float]:
    if top <= 0:
        return [0]
    raw = top / 4
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    step = max(step, 1)
    out, t = [], 0.0
    while t <= top + 1e-9:
        out.append(t)
        t += step
    return out


def network(net: Network, palette: dict[str, str], width: int = 900, height: int = 560, labels: int = 30,
            seed: int = 29) -> str:
    """A network drawn with a seeded layout: node area by size, colour by group, edge width by weight; the
    ``labels`` largest nodes are labelled, every node has a tooltip and, if it has one, a link."""
    if not net.nodes:
        return '<p class="empty">No network: nothing links here yet.</p>'
    pos = layout(net, seed)
    pad = 40
    height = min(height, 180 + 45 * len(net.nodes))  # a few nodes need no big box
    top_size = max(n.size for n in net.nodes.values()) or 1
    top_w = max(net.edges.values(), default=1) or 1

    def xy(nid: str) -> tuple[float, float]:
        x, y = pos[nid]
        return pad + x * (width - 2 * pad), pad + y * (height - 2 * pad)

    def radius(size: float) -> float:
        return 4 + 14 * math.sqrt(size / top_size)

    out = [f'<svg class="network" id="net-{escape(net.name)}" role="img" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
           f'<title>{escape(net.title)}</title><g class="edges">']
    marker = ""
    if net.directed:
        marker = ' marker-end="url(#arrow)"'
        out.insert(2, '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
                      'markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
                      '<path d="M 0 0 L 10 5 L 0 10 z" '
                      'fill="#888"/></marker></defs>')
    for (a, b), w in sorted(net.edges.items()):
        if a not in pos or b not in pos:
            continue
        (x1, y1), (x2, y2) = xy(a), xy(b)
        if net.directed:  # stop the arrow at the target's edge
            d = math.hypot(x2 - x1, y2 - y1) or 1
            r = radius(net.nodes[b].size) + 1
            x2, y2 = x2 - (x2 - x1) * r / d, y2 - (y2 - y1) * r / d
        sw = 0.6 + 3 * w / top_w
        out.append(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke-width="{_f(sw)}"{marker}>'
                   f'<title>{escape(net.nodes[a].label)} – {escape(net.nodes[b].label)}: {w:g}</title></line>')
    out.append('</g><g class="nodes">')
    labelled = set(sorted(net.nodes, key=lambda n: (-net.nodes[n].size, n))[:labels])
    for nid in sorted(net.nodes, key=lambda n: (net.nodes[n].size, n)):  # the big ones on top
        node = net.nodes[nid]
        x, y = xy(nid)
        r = radius(node.size)
        colour = palette.get(node.group, OTHER)
        circle = (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{colour}">'
                  f'<title>{escape(node.label)} ({escape(node.group)}): {node.size:g}</title></circle>')
        label = ""
        if nid in labelled:
            anchor = "end" if x > width * 0.8 else "start"
            dx = -r - 3 if anchor == "end" else r + 3
            label = (f'<text x="{_f(x + dx)}" y="{_f(y + 4)}" text-anchor="{anchor}">'
                     f'{escape(_fit(node.label, 28))}</text>')
        body = circle + label
        out.append(f'<a href="{escape(node.href)}">{body}</a>' if node.href else body)
    out.append("</g></svg>")
    return "".join(out)

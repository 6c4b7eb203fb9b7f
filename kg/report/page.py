"""The report as one self-contained HTML page: every section from ``data.Corpus``, pictures from ``svg``."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cached_property
from html import escape
from itertools import combinations
from typing import TYPE_CHECKING

from .. import __version__
from ..rdf.ids import DOI_RESOLVER
from ..refs.topics import concepts
from ..resources import data_file
from ..validate.render import summary
from ..validate.shapes import shape_words
from ..validate.words import NO_WORDS
from ..workspace import fetch_command
from . import svg
from .data import TOP_CITED, WEAK, Corpus, Pair, ToolRow, tool_key, work_key
from .network import Network, Node
from .source import ReportSource

if TYPE_CHECKING:
    from ..validate import ValidationReport

# how much of each list the page shows (the rest is counted: "and N more"); the file stays a few MB at scale
TOP = {"tools_chart": 30, "tools_years": 8, "pair_years": 12, "tool_anchors": 150, "tool_citing": 25,
       "matrix_tools": 40, "matrix_papers": 30, "works": 500, "net_tools": 60, "net_citation": 45, "net_coupling": 70,
       "topic_evidence": 300, "unresolved": 200, "candidates": 50, "untitled": 100, "validation": 20, "evidence": 1500}


def e(x: object) -> str:
    return escape(str(x), quote=True)


def more(n_shown: int, n_all: int, what: str) -> str:
    return f'<p class="more">and {n_all - n_shown:,} more {what}</p>' if n_all > n_shown else ""


def commands(*cmds: str) -> str:
    return '<div class="cmd">From: ' + "".join(f"<code>{e(c)}</code>" for c in cmds) + "</div>"


def section(sid: str, title: str, why: str, cmds: list[str], body: str) -> str:
    return (f'<section class="part" id="{sid}"><h2>{e(title)}</h2><p class="why">{e(why)}</p>{commands(*cmds)}'
            f"{body}</section>")


def doi_link(doi: str) -> str:
    return f'<a href="{DOI_RESOLVER}{e(doi)}">{e(doi)}</a>'


def work_link(c: Corpus, doi: str, most: int = 90) -> str:
    w = c.works.get(doi)
    title = (w.title if w and w.title else doi)
    title = title if len(title) <= most else title[: most - 1] + "…"
    return f'<a href="#{work_key(doi)}">{e(title)}</a>'


def tool_link(t: ToolRow) -> str:
    return f'<a href="#tool-{e(t.key)}">{e(t.name)}</a>'


class Page:
    def __init__(self, c: Corpus, src: ReportSource, validation: ValidationReport | None, validation_note: str) -> None:
        self.c, self.src = c, src
        self.validation, self.validation_note = validation, validation_note
        self.cat_colour = svg.colours(c.categories)
        self.networks: list[Network] = []
        # the tools that get an anchor: the most cited and every tool of a matrix
        ranked = list(c.tools)
        anchored = set(ranked[: TOP["tool_anchors"]])
        for p in c.pairs:
            anchored.update(self._matrix_tools(p)[0])
        self.anchored = [t for t in ranked if t in anchored]
        # the works that get a row (an anchor): every paper of a matrix, then the rest by year and title
        shown = set()
        for p in c.pairs:
            a, b = self._matrix_papers(p)
            shown.update(a + b)
        order = sorted(c.works.values(), key=lambda w: (w.doi not in shown, -(int(w.year) if w.year.isdigit() else 0),
                                                         w.title.lower(), w.doi))
        self.table_works = [w.doi for w in order[: max(TOP["works"], len(shown))]]

    # ------------------------------------------------------------------ the whole page

    def html(self) -> str:
        c = self.c
        css = data_file("report/report.css").read_text(encoding="utf-8")
        js = data_file("report/report.js").read_text(encoding="utf-8")
        parts = [self.overview(), self.headline(), self.tools(), self.works(), self.topics(), self.curation()]
        nav = "".join(f'<a href="#{sid}">{name}</a>' for sid, name in (
            ("overview", "Overview"), ("headline", "Tools × papers"), ("tools", "Tools"), ("works", "Works"),
            ("topics", "Topics"), ("curation", "Curation")))
        n = c.stats.get("works", 0)
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>crossref-kg report: {n:,} works</title><style>{css}</style></head><body>"
                f'<header class="top"><h1>The corpus at a glance</h1><p>{n:,} works, '
                f"{c.stats.get('references', 0):,} references, {len(c.tools):,} tools cited; "
                f"every number below is one <code>kg query</code> gives.</p></header>"
                f'<nav class="toc">{nav}</nav><main>{"".join(parts)}</main>'
                f"<footer>Written by crossref-kg {e(__version__)} <code>kg report</code>; offline: no script, style "
                f"or picture comes from elsewhere.</footer><script>{js}</script></body></html>\n")

    # ------------------------------------------------------------------ overview

    def overview(self) -> str:
        c = self.c
        refs = c.stats.get("references", 0)
        resolved = (refs - c.unresolved_total) / refs if refs else 0.0
        n_topics = len({r["topic_iri"] for r in c.topics})
        cards = [("works", c.stats.get("works", 0)), ("references", refs), ("resolved", f"{resolved:.0%}"),
                 ("tools cited", c.stats.get("tools", 0)), ("topics assigned", n_topics),
                 ("people", c.stats.get("people", 0)), ("cited works", c.stats.get("cited_works", 0))]
        body = '<div class="cards">' + "".join(
            f'<div class="card"><b>{v:,}</b><span>{e(k)}</span></div>' if isinstance(v, int)
            else f'<div class="card"><b>{e(v)}</b><span>{e(k)}</span></div>' for k, v in cards) + "</div>"
        years = sorted({r["year"] for r in c.years}, key=lambda y: (not y.isdigit(), y))
        if len([y for y in years if y.isdigit()]) > 1:  # every year in between, so gaps show
            nums = [int(y) for y in years if y.isdigit()]
            years = [str(y) for y in range(min(nums), max(nums) + 1)] + [y for y in years if not y.isdigit()]
        type_total: Counter[str] = Counter()
        counts: dict[tuple[str, str], float] = {}
        for r in c.years:
            counts[(r["year"], r["type"])] = float(r["works"])
            type_total[r["type"]] += int(r["works"])
        types = sorted(type_total, key=lambda t: (-type_total[t], t))
        colour = svg.colours(types)
        series = [(t, [counts.get((y, t), 0.0) for y in years], colour[t]) for t in types]
        body += "<h3>Works per year and type</h3>" + svg.columns(years, series, name="years")
        body += svg.legend([(f"{t} ({type_total[t]:,})", colour[t]) for t in types])
        return section("overview", "Overview", "How big the corpus is, how much of it resolved, and when it was "
                       "published.", [self.src.stats_command(), self.src.command("years"),
                                      self.src.command("unresolved"), self.src.command("topics")], body)

    # ------------------------------------------------------------------ the headline matrix

    def _matrix_tools(self, p: Pair) -> tuple[list[str], set[str]]:
        both = set(p.both)
        count: Counter[str] = Counter()
        for doi in set(p.papers_a) | set(p.papers_b):
            w = self.c.works.get(doi)
            for t in (w.tools if w else ()):
                count[t] += 1
        for t in both:
            count.setdefault(t, 0)
        order = sorted(count, key=lambda t: (t not in both, -count[t], self.c.tools[t].name.lower() if t in
                                             self.c.tools else t, t))
        return [t for t in order if t in self.c.tools][: TOP["matrix_tools"]], both

    def _matrix_papers(self, p: Pair) -> tuple[list[str], list[str]]:
        """The papers of each side citing the most of the matrix's tools."""
        shown = set(self._matrix_tools(p)[0])

        def rank(dois: list[str]) -> list[str]:
            def n(d: str) -> int:
                w = self.c.works.get(d)
                return len(w.tools & shown) if w else 0
            return sorted(dois, key=lambda d: (-n(d), d))[: TOP["matrix_papers"]]
        return rank(p.papers_a), rank(p.papers_b)

    def headline(self) -> str:
        c = self.c
        if not c.pairs:
            return section("headline", "Tools × papers", "No topic families with works: nothing to cross.", [],
                           f'<p class="note" id="pair-note">{e(c.pair_note)}</p>' if c.pair_note else "")
        opts = "".join(f'<option value="{e(p.id)}">{e(p.label_a)} × {e(p.label_b)}</option>' for p in c.pairs)
        body = (f'<div class="pairpick"><label for="pair">Topic pair: </label><select id="pair">{opts}</select></div>'
                '<p class="key">A row per tool, a column per paper of each side (its primary topic in the family). '
                'A dot is a reference of that paper citing that tool: a coloured dot links to the reference and how '
                'the tool was recognised, a grey dot to the tool. <span class="both">Highlighted</span> rows: tools '
                'cited by a paper of each side.</p>')
        if c.pair_note:
            body = f'<p class="note" id="pair-note">{e(c.pair_note)}</p>' + body
        for p in c.pairs:
            body += self._matrix(p)
        p0 = c.pairs[0]
        return section("headline", "The headline question as a picture",
                       f"Which tools do papers of {p0.label_a} and papers of {p0.label_b} both cite?",
                       [self.src.command("tools-cited-by-profiling-and-compiler", p0.params),
                        self.src.command("tools-cited-by-both", p0.params), self.src.command("topics")], body)

    def _matrix(self, p: Pair) -> str:
        c = self.c
        tools, both = self._matrix_tools(p)
        pa, pb = self._matrix_papers(p)
        evidence: dict[tuple[str, str], list] = defaultdict(list)
        cells = {(t, d) for t in tools for d in pa + pb}
        for r in p.rows:
            if (r.tool_iri, r.doi) in cells:  # the evidence of the cells shown
                evidence[(r.tool_iri, r.doi)].append(r)
        ev_id = {}
        items: list[str] = []
        for (t, doi), rows in sorted(evidence.items(), key=lambda kv: (c.tools[kv[0][0]].name.lower()
                                                                       if kv[0][0] in c.tools else kv[0][0], kv[0])):
            if len(items) >= TOP["evidence"]:
                break
            anchor = f"ev-{p.id}-{tool_key(t)}-{work_key(doi)[5:]}"
            ev_id[(t, doi)] = anchor
            refs = "; ".join(f"{r.key or 'reference'}: “{r.reference[:200]}” — recognised by {r.method} "
                             f"(score {r.score}, matched “{r.matched}”)" for r in rows)
            items.append(f'<li id="{e(anchor)}"><b>{e(rows[0].tool)}</b> in {work_link(c, doi)}: {e(refs)}</li>')
        head1 = '<tr><th class="tool"></th>'
        if pa:
            head1 += (f'<th class="side a" colspan="{len(pa)}">{e(p.label_a)} '
                      f'({len(p.papers_a):,} paper{"s" if len(p.papers_a) != 1 else ""})</th>')
        head1 += '<th class="gap"></th>'
        if pb:
            head1 += (f'<th class="side b" colspan="{len(pb)}">{e(p.label_b)} '
                      f'({len(p.papers_b):,} paper{"s" if len(p.papers_b) != 1 else ""})</th>')
        head1 += "</tr>"

        def paper_head(doi: str) -> str:
            w = c.works.get(doi)
            title = w.title if w and w.title else doi
            return f'<th class="paper" title="{e(title)}"><div><a href="#{work_key(doi)}">{e(title)}</a></div></th>'

        head2 = '<tr><th class="tool">Tool</th>' + "".join(paper_head(d) for d in pa) + '<th class="gap"></th>' + \
            "".join(paper_head(d) for d in pb) + "</tr>"
        rows = []
        for t in tools:
            tool = c.tools[t]

            def cell(doi: str, side: str, t: str, tool: ToolRow) -> str:
                if (t, doi) in ev_id:
                    n = len(evidence[(t, doi)])
                    return (f'<td class="cell {side}"><a href="#{e(ev_id[(t, doi)])}" title="{e(tool.name)}: '
                            f'{n} reference{"s" if n != 1 else ""}">{n}</a></td>')
                if doi in tool.citing:
                    n = len(tool.citing[doi])
                    return (f'<td class="cell {side}"><a class="plain" href="#tool-{e(tool.key)}" '
                            f'title="{e(tool.name)}">{n}</a></td>')
                return f'<td class="cell {side}"></td>'

            rows.append(f'<tr class="{"both" if t in both else "one"}"><th class="tool">{tool_link(tool)} '
                        f'<small>{e(tool.category)}</small></th>' + "".join(cell(d, "a", t, tool) for d in pa) +
                        '<td class="gap"></td>' + "".join(cell(d, "b", t, tool) for d in pb) + "</tr>")
        n_tools = len(self._all_matrix_tools(p))
        table = (f'<div class="wide"><table class="matrix" id="matrix-{e(p.id)}"><thead>{head1}{head2}</thead>'
                 f'<tbody>{"".join(rows)}</tbody></table></div>')
        if not tools:
            table = '<p class="empty">No paper of either side cites a recognised tool.</p>'
        note = more(len(tools), n_tools, "tools") + more(len(pa), len(p.papers_a), f"papers of {p.label_a}") + \
            more(len(pb), len(p.papers_b), f"papers of {p.label_b}")
        names = [c.tools[t].name for t in tools if t in both]
        both_names = ", ".join(names[:20]) + (f" and {len(both) - len(names[:20])} more" if len(both) > 20 else "") \
            if names else "none"
        ev = (f"<details><summary>Supporting references and recognition evidence ({len(evidence):,} tool–paper "
              f"pairs)</summary><ol class=\"evidence\">{''.join(items)}</ol>{more(len(items), len(evidence), 'pairs')}"
              "</details>")
        cmd = commands(self.src.command("tools-cited-by-profiling-and-compiler", p.params))
        return (f'<div class="pair" id="pair-{e(p.id)}"><h3>{e(p.label_a)} × {e(p.label_b)}</h3>{cmd}'
                f"<p>Cited by both sides: <b>{len(both)}</b> tool{'s' if len(both) != 1 else ''} ({e(both_names)}).</p>"
                f"{table}{note}{ev}{self._pair_years(p)}</div>")

    def _pair_years(self, p: Pair) -> str:
        """The tools cited by both sides of a pair over the years (tools-by-year), the most cited first."""
        both = [t for t in self.c.tools.values() if t.iri in set(p.both)]  # (most cited first)
        shown = both[: TOP["pair_years"]]
        if not shown:  # (the line above the matrix says so)
            return ""
        return (f"<h4>The {len(both)} tool{'s' if len(both) != 1 else ''} cited by both sides over the years</h4>"
                + '<p class="key">The share of each year\'s input works (of the whole corpus) that cite the '
                f"tool, for {'the' if len(shown) == len(both) else f'the {len(shown)} most cited of the'} tools "
                f"cited by both {e(p.label_a)} and {e(p.label_b)}; a point's tooltip gives the counts.</p>"
                + commands(self.src.command("tools-by-year")) + self._adoption(shown, name="pair-years")
                + more(len(shown), len(both), "tools cited by both sides"))

    def _all_matrix_tools(self, p: Pair) -> set[str]:
        out = {r.tool_iri for r in p.rows}
        for doi in set(p.papers_a) | set(p.papers_b):
            w = self.c.works.get(doi)
            out.update(w.tools if w else ())
        return out

    # ------------------------------------------------------------------ tools

    def tools(self) -> str:
        c = self.c
        ranked = list(c.tools.values())
        top = ranked[: TOP["tools_chart"]]
        body = "<h3>Most-cited tools</h3>" + svg.hbars(
            [(t.name, t.citing_works, self.cat_colour.get(t.category, svg.OTHER), f"#tool-{t.key}") for t in top],
            name="tools-chart")
        used = [cat for cat in c.categories if any(t.category == cat for t in top)]
        body += svg.legend([(cat, self.cat_colour[cat]) for cat in used]) + more(len(top), len(ranked), "tools")
        most = ranked[: TOP["tools_years"]]
        body += ("<h3>Most-cited tools over the years</h3><p class=\"key\">The share of each year's input works "
                 f"that cite the tool, for the {len(most)} most-cited tools ({e(', '.join(t.name for t in most))}; "
                 "the tools cited by both sides of a topic pair are drawn with its matrix); a point's tooltip gives "
                 "the counts.</p>" + self._adoption(most))
        cat_works: Counter[str] = Counter()
        cat_tools: Counter[str] = Counter()
        for t in ranked:
            cat_works[t.category] += t.citing_works
            cat_tools[t.category] += 1
        body += "<h3>Tool categories</h3>" + svg.hbars(
            [(f"{cat} ({cat_tools[cat]} tools)", cat_works[cat], self.cat_colour[cat], "") for cat in c.categories],
            name="categories-chart", label_width=240)
        body += '<p class="key">Bar length: citing works summed over the tools of the category.</p>'
        net = self.cocitation()
        self.networks.append(net)
        shown = net.trimmed(TOP["net_tools"], most_edges=3 * TOP["net_tools"])
        body += ("<h3>Co-citation network</h3><p class=\"key\">Tools linked when the same paper cites both "
                 "(line width: papers citing both), sized by citing papers, coloured by category; "
                 "a node links to the tool.</p>" +
                 svg.network(shown, self.cat_colour) + more(len(shown.nodes), len(net.nodes), "tools in the network"))
        # folded: a line for all of them, and a line a tool when opened (a link to a tool opens both)
        n = len(self.anchored)
        body += ('<h3>Each tool</h3><details class="tools-list" id="tools-each"><summary>The works citing each of '
                 f'the {n:,} {"most-cited " if n < len(ranked) else ""}tool{"s" if n != 1 else ""} (open a tool for '
                 "its citing works and how it was recognised)</summary>")
        for iri in self.anchored:
            body += self._tool(c.tools[iri])
        body += "</details>" + more(n, len(ranked), "tools (kg query tools lists them all)")
        return section("tools", "Tools", "The software the corpus cites: most cited, by category, cited together, "
                       "and by whom.", [self.src.command("tools"), self.src.command("tools-by-year"),
                                        self.src.command("tool-citations")], body)

    def _adoption(self, top: list[ToolRow], name: str = "adoption") -> str:
        """Tools over the years: each year's share of the input works citing the tool (tools-by-year), every year
        from the first to the last, a year without works left out of the line; the chart and its legend."""
        rows = self.c.tool_years
        known = sorted({int(r["year"]) for r in rows if r["year"].isdigit()})
        years = [str(y) for y in range(known[0], known[-1] + 1)] if known else []
        years += sorted({r["year"] for r in rows if not r["year"].isdigit()})
        works = {r["year"]: r["works"] for r in rows}
        at = {(r["tool_iri"], r["year"]): r for r in rows}
        colour = svg.colours([t.name for t in top])
        series = []
        for t in top:
            values: list[float | None] = []
            tips = []
            for y in years:
                r = at.get((t.iri, y))
                share = int(r["citing_works"]) / int(r["works"]) if r else 0.0
                values.append(share if y in works else None)
                tips.append(f"{t.name}, {y}: {r['citing_works']} of {r['works']} works ({r['share']})" if r else
                            f"{t.name}, {y}: 0 of {works.get(y, 0)} works")
            series.append((t.name, values, colour[t.name], tips))
        return svg.lines(years, series, name=name) + svg.legend([(t.name, colour[t.name]) for t in top])

    def cocitation(self) -> Network:
        c = self.c
        net = Network("tool-cocitation", "Tools cited by the same paper")
        for t in c.tools.values():
            net.nodes[t.iri] = Node(t.iri, t.name, t.citing_works, t.category, f"#tool-{t.key}")
        for w in c.works.values():
            for a, b in combinations(sorted(w.tools), 2):
                net.add_edge(a, b)
        return net

    def _tool(self, t: ToolRow) -> str:
        items: list[str] = []
        for doi in sorted(t.citing, key=lambda d: (self.c.works[d].title.lower() if d in self.c.works else d, d)):
            if len(items) >= TOP["tool_citing"]:
                break
            hows = []
            for key, how in t.citing[doi]:
                h = f"{key or 'a reference'}"
                if how is not None:
                    h += f" ({how.method}, score {how.score})"
                hows.append(h)
            items.append(f"<li>{work_link(self.c, doi)} — {e('; '.join(hows))}</li>")
        return (f'<details class="tool" id="tool-{e(t.key)}"><summary><b>{e(t.name)}</b> <small>{e(t.category)} · '
                f'{t.citing_works:,} citing work{"s" if t.citing_works != 1 else ""}, {t.references:,} '
                f'reference{"s" if t.references != 1 else ""}</small></summary>'
                f'{commands(self.src.command("works-citing", {"target": t.iri}))}'
                f'<ul class="cites">{"".join(items)}</ul>{more(len(items), len(t.citing), "citing works")}</details>')

    # ------------------------------------------------------------------ works

    def works(self) -> str:
        c = self.c
        rows = []
        for doi in self.table_works:
            w = c.works[doi]
            authors = ", ".join(w.authors[:3]) + (f" and {len(w.authors) - 3} more" if len(w.authors) > 3 else "")
            topic = "; ".join(f"{label} ({score})" for _cid, label, score, _ev in w.primary)
            evidence = "; ".join(ev for *_x, ev in w.primary if ev)
            rows.append(f'<tr id="{work_key(doi)}"><td>{e(w.title or "(no title)")}<br><small>{doi_link(doi)}</small>'
                        f"</td><td>{e(authors)}</td><td>{e(w.venue)}</td><td>{e(w.type)}</td>"
                        f"<td class=\"num\">{e(w.year)}</td>"
                        f'<td class="num">{len(w.tools)}</td><td>{e(topic)}<br><small>{e(evidence)}</small></td></tr>')
        body = ('<p class="key">Click a column head to sort.</p><div class="wide tall"><table class="sortable works">'
                '<thead><tr><th>Title</th><th>Authors</th><th>Venue</th><th>Type</th><th class="num">Year</th>'
                '<th class="num">Tools</th><th>Primary topic (score) and evidence</th></tr></thead><tbody>' +
                "".join(rows) + "</tbody></table></div>" + more(len(rows), len(c.works), "works"))
        cit = self.citation_graph()
        self.networks.append(cit)
        shown = cit
        pal = {"input work": "#0072B2", "cited work": "#E69F00"}
        body += ("<h3>Citation graph</h3><p class=\"key\">Input works (blue) and the works they cite most (orange, "
                 "sized by citing input works); arrows point to the cited work.</p>"
                 + svg.network(shown, pal, labels=24) + svg.legend(list(pal.items())) +
                 more(0, self.citation_more, "input works citing these (the graph shows those citing most of them)"))
        coup = self.coupling()
        self.networks.append(coup)
        shown = coup.trimmed(TOP["net_coupling"], most_edges=3 * TOP["net_coupling"])
        body += ("<h3>Bibliographic coupling</h3><p class=\"key\">Input works linked when they cite the same works "
                 "(line width: shared cited works), coloured by primary topic family.</p>" +
                 svg.network(shown, self.family_colour, labels=24) +
                 svg.legend([(k, v) for k, v in self.family_colour.items()
                             if any(n.group == k for n in shown.nodes.values())]) +
                 more(len(shown.nodes), len(coup.nodes), "works in the network"))
        return section("works", "Works", "The input works, what they cite most, and which of them cite alike.",
                       [self.src.command("works"), self.src.command("topics"),
                        self.src.command("most-cited", {"min-citing": "2"}, TOP_CITED),
                        self.src.command("works-citing", {"target": c.most_cited[0]["cited"]} if c.most_cited
                                         else None),
                        self.src.command("internal-citations"), self.src.command("bibliographic-coupling")], body)

    @cached_property
    def family_colour(self) -> dict[str, str]:
        labels = {c.id: c.label for c in concepts()}
        fams = sorted({self._family_label(w.doi, labels) for w in self.c.works.values()})
        count = Counter(self._family_label(w.doi, labels) for w in self.c.works.values())
        return svg.colours(sorted(fams, key=lambda f: (-count[f], f)))

    def _family_label(self, doi: str, labels: dict[str, str]) -> str:
        from .data import _family
        w = self.c.works.get(doi)
        for cid, *_ in (w.primary if w else ()):
            fam = _family(cid)
            return labels.get(fam or cid, cid)
        return "no topic"

    def citation_graph(self) -> Network:
        """The most-cited works and the input works that cite most of them (and the citations among those)."""
        c = self.c
        net = Network("citation-graph", "Input works and the works they cite most", directed=True)
        counts = {r["cited"]: int(r["citing_works"]) for r in c.most_cited if int(r["citing_works"]) > 1}
        top = sorted(counts, key=lambda x: (-counts[x], x))[:15]
        big = max((counts[x] for x in top), default=1) / 4  # input works drawn middling, the most cited large
        links: Counter[str] = Counter()
        for cited in top:
            links.update(c.cited_by.get(cited, ()))
        for r in c.internal:
            links.update((r["citing"], r["cited"]))
        inputs = set(sorted(links, key=lambda d: (-links[d], d))[: TOP["net_citation"] - len(top)])

        def add_input(doi: str) -> None:
            if doi not in net.nodes:
                w = c.works.get(doi)
                net.nodes[doi] = Node(doi, (w.title if w and w.title else doi), big, "input work", f"#{work_key(doi)}")
        for cited in top:
            title = c.cited_title.get(cited) or c.cited_label.get(cited) or cited.replace(DOI_RESOLVER, "")
            net.nodes[cited] = Node(cited, title, counts[cited], "cited work")
            for doi in c.cited_by.get(cited, ()):
                if doi in inputs:
                    add_input(doi)
                    net.edges[(doi, cited)] = 1.0
        for r in c.internal:
            if r["citing"] in inputs and r["cited"] in inputs:
                add_input(r["citing"])
                add_input(r["cited"])
                net.edges[(r["citing"], r["cited"])] = 1.0
        self.citation_more = len(links) - len(inputs)
        return net

    def coupling(self) -> Network:
        c = self.c
        labels = {x.id: x.label for x in concepts()}
        net = Network("bibliographic-coupling", "Input works that cite the same works")
        shared: dict[tuple[str, str], int] = {}
        for r in c.coupling:
            shared[(r["doi_a"], r["doi_b"])] = int(r["shared"])
        for (a, b), n in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0])):
            for doi in (a, b):
                if doi not in net.nodes:
                    w = c.works.get(doi)
                    net.nodes[doi] = Node(doi, (w.title if w and w.title else doi), 0, self._family_label(doi, labels),
                                          f"#{work_key(doi)}")
                net.nodes[doi].size += n
            net.add_edge(a, b, n)
        return net

    # ------------------------------------------------------------------ topics

    def topics(self) -> str:
        c = self.c
        all_concepts = concepts()
        children: dict[str, list] = defaultdict(list)
        for x in all_concepts:
            children[x.ancestors[0] if x.ancestors else ""].append(x)
        top_n = max(c.topic_counts.values(), default=1)

        def tree(parent: str) -> str:
            items = []
            for x in sorted(children[parent], key=lambda x: (-c.topic_counts[x.id], x.label.lower())):
                n = c.topic_counts[x.id]
                if not n:
                    continue
                direct = c.direct_counts[x.id]
                sub = tree(x.id)
                bar = f'<span class="bar" style="width:{max(2, round(120 * n / top_n))}px"></span>'
                own = f" <small>({direct} directly)</small>" if sub and direct else ""
                items.append(f'<li><span class="n">{n:,}</span>{bar}{e(x.label)} <small><code>{e(x.id)}</code>'
                             f"</small>{own}{sub}</li>")
            return f'<ul class="tree">{"".join(items)}</ul>' if items else ""

        empty = sum(1 for x in all_concepts if not c.topic_counts[x.id])
        body = ("<p class=\"key\">Works whose primary topic is the concept or narrower; the scheme is "
                "<code>kg/data/topics.ttl</code>.</p>" + tree("") +
                f'<p class="more">{empty} concepts of the scheme have no works and are not shown.</p>')
        rows = []
        primary = [r for r in c.topics if r["primary"] == "true"]
        for r in primary[: TOP["topic_evidence"]]:
            rows.append(f'<tr><td>{work_link(c, r["doi"], 70)}</td><td>{e(r["label"])}</td><td class="num">'
                        f'{e(r["topic_score"])}</td><td>{e(r["topic_method"])}</td><td>{e(r["evidence"])}</td></tr>')
        body += ('<h3>Each work\'s primary topic and its evidence</h3><div class="wide tall"><table class="sortable">'
                 '<thead><tr><th>Work</th><th>Topic</th><th class="num">Score</th><th>Method</th><th>Evidence</th>'
                 "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>" +
                 more(len(rows), len(primary), "works"))
        return section("topics", "Topics", "The topic scheme with the number of works under each concept, and why "
                       "each work got its topic.", [self.src.command("topics"), self.src.command("tools-by-topic")],
                       body)

    # ------------------------------------------------------------------ curation

    def curation(self) -> str:
        c = self.c
        body = "<h3>Unresolved and weak references</h3>"
        rows = [f'<tr><td>{work_link(c, r["citing"], 50)}</td><td>{e(r["key"])}</td>'
                f'<td>{e(r["resolution_method"])}</td><td class="num">{e(r["resolution_score"])}</td>'
                f'<td>{e(r["kind"])}</td><td>{e(r["text"][:300])}</td></tr>'
                for r in c.unresolved[: TOP["unresolved"]]]
        sources = (self.src.command("unresolved"), self.src.command("weakly-resolved", {"threshold": WEAK}))
        body += (commands(*sources) + '<div class="wide tall"><table class="sortable"><thead><tr>'
                 '<th>Citing work</th><th>Key</th><th>Method</th><th class="num">Score</th><th>Kind</th><th>Text</th>'
                 "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>" +
                 more(len(rows), len(c.unresolved), "references") if rows else
                 commands(*sources) + '<p class="empty">None: every reference resolved well.</p>')
        body += "<h3>Tool candidates</h3>" + commands(self.src.command("tool-candidates"))
        by_cand: dict[str, list[dict[str, str]]] = defaultdict(list)
        for r in c.candidates:
            by_cand[r["candidate"]].append(r)
        cands = sorted(by_cand, key=lambda k: (-int(by_cand[k][0]["citing_works"]), k.lower()))
        if not cands:
            body += '<p class="empty">None: every reference that looks like software names a catalogued tool.</p>'
        else:
            body += ("<p class=\"key\">Software references cite that the catalogue does not know. To promote one, add "
                     "its line to the <code>tools</code> list of a catalogue file (set the category) and rebuild with "
                     "<code>kg build --tools FILE</code>.</p>")
            for k in cands[: TOP["candidates"]]:
                rs = by_cand[k]
                line = json.dumps({"id": tool_key("/tool/" + k), "name": k, "category": "other",
                                   "aliases": sorted({r["matched"] for r in rs if r["matched"] and r["matched"] != k})},
                                  ensure_ascii=False)
                ev = "; ".join(f'{r["citing"]} {r["key"]}: “{r["text"][:160]}”' for r in rs[:3])
                body += (f'<h4>{e(k)} <small>{e(rs[0]["citing_works"])} citing works, score '
                         f'{e(rs[0]["recognition_score"])}</small></h4><pre class="json">{e(line)}</pre>'
                         f'<p class="key">{e(ev)}</p>')
            body += more(min(len(cands), TOP["candidates"]), len(cands), "candidates")
        body += "<h3>Works whose cited works lack titles</h3>"
        body += ("<p class=\"key\">Cited works known only by their DOI: fetching their Crossref records lets "
                 "resolution and tool recognition read their titles.</p>"
                 + commands(self.src.command("untitled-cited")))
        if c.untitled:
            on_workspace = self.src.local_files is not None and not self.src.graphs
            body += ("<p>Fetch them all, then build again with the records fetched:</p>"
                     f'<pre class="command"><code>{e(fetch_command(on_workspace))}</code></pre>')
        rows = []
        for r in c.untitled[: TOP["untitled"]]:
            n = int(r["untitled"])
            shown = r["first"] + (f" … ({n - 1:,} more)" if n > 1 else "")
            rows.append(f'<tr><td>{work_link(c, r["citing"], 70)}</td><td class="num">{n:,}</td>'
                        f"<td><code>{e(shown)}</code></td></tr>")
        body += (('<div class="wide"><table class="untitled"><thead><tr><th>Citing work</th>'
                  '<th class="num">Cited works without a title</th><th>The first of their DOIs</th></tr></thead>'
                  f'<tbody>{"".join(rows)}</tbody></table></div>') if rows else
                 '<p class="empty">None: every cited DOI has a title.</p>') + more(len(rows), len(c.untitled), "works")
        body += "<h3>Validation</h3>" + self._validation()
        return section("curation", "Curation", "What to look at to make the graph better: weak references, software "
                       "the catalogue misses, cited works without titles, and what the shapes say.",
                       [self.src.command("unresolved"), self.src.command("tool-candidates"),
                        "kg validate" + "".join(f" {g}" for g in (self.src.graphs or []))], body)

    def _validation(self) -> str:
        v = self.validation
        if v is None:
            return f'<p class="empty">{e(self.validation_note)}</p>'
        nv, nw, ni = v.count("Violation"), v.count("Warning"), v.count("Info")
        verdict = summary(v, shape_words() if v.results else NO_WORDS)  # (the line kg validate ends with)
        css = "bad" if nv else "warn" if v.results else "ok"
        out = (f'<p>The graph is <span class="{css}">{e(verdict)}</span>: {nv:,} violations, {nw:,} warnings, '
               f'{ni:,} infos (SHACL\'s sh:conforms is {"true" if v.conforms else "false"}: any result, a warning '
               'too, makes it false).</p>')
        groups: Counter[tuple[str, str]] = Counter((r.severity, r.message) for r in v.results)
        if groups:
            rank = {"Violation": 0, "Warning": 1, "Info": 2}
            top = sorted(groups, key=lambda g: (rank.get(g[0], 3), -groups[g], g[1]))[: TOP["validation"]]
            out += ('<table><thead><tr><th>Severity</th><th class="num">Results</th><th>Message</th></tr></thead>'
                    "<tbody>" + "".join(f'<tr><td>{e(s)}</td><td class="num">{groups[(s, m)]:,}</td>'
                                        f'<td>{e(m)}</td></tr>' for s, m in top)
                    + "</tbody></table>" + more(len(top), len(groups), "messages"))
        return out

"""Every reference of a work, none dropped, each with a node of its own and a citation link.

Crossref -> RDF: reference[i] -> a biro:BibliographicReference ``{base}doi/{doi}/reference/{i+1}``
(work frbr:part it) with kg:position i+1, kg:referenceKey (verbatim), c4o:hasContent (the unstructured
text, or a rendering of the structured fields), one kg:cited* property per structured field, the parsed
fields (kg:parsedTitle, kg:parsedYear, ..., and each parsed author in order: kg:parsedAuthor a kg:ParsedAuthor
``{reference}/author/{k}`` with kg:position k, schema:name as written and schema:familyName), and
biro:references the cited work chosen by the resolver (``https://doi.org/{doi}`` when a DOI is known) with
kg:resolutionMethod, kg:resolutionScore and kg:matchedText. The work cito:cites and schema:citation the cited work.
"""

from __future__ import annotations

from ..model import Reference, Work
from ..rdf.ids import DOI_RESOLVER
from ..rdf.terms import XSD_GYEAR, XSD_INTEGER, decimal, lit, score_decimal
from ..rdf.vocab import BIRO, C4O, CITO, FABIO, FRBR, KG, RDF, SDO
from ..refs.enrich import Knowledge
from ..refs.fields import family_name
from .common import Triple, add_str, url_obj
from .context import Context
from .knowledge import tool_node, tool_segments

FIELD_PROPERTIES: dict[str, str] = {
    "article-title": KG.citedArticleTitle, "author": KG.citedAuthor, "year": KG.citedYear,
    "volume": KG.citedVolume, "issue": KG.citedIssue, "first-page": KG.citedFirstPage,
    "journal-title": KG.citedJournalTitle, "volume-title": KG.citedVolumeTitle,
    "series-title": KG.citedSeriesTitle, "edition": KG.citedEdition, "component": KG.citedComponent,
    "standard-designator": KG.citedStandardDesignator, "standards-body": KG.citedStandardsBody,
    "issn": KG.citedISSN, "isbn": KG.citedISBN, "issn-type": KG.citedISSNType, "isbn-type": KG.citedISBNType,
}


def render(ref: Reference) -> str | None:
    """A readable citation from the structured fields (used when Crossref gives no unstructured text).

    Example:

    >>> fields = (("author", "Chen T."), ("year", "2018"), ("article-title", "TVM"))
    >>> render(Reference(1, None, None, None, None, fields))
    'Chen T. (2018). TVM.'
    """
    f = dict(ref.fields)
    parts = []
    if "author" in f:
        parts.append(f["author"] + (f" ({f['year']})." if "year" in f else "."))
    elif "year" in f:
        parts.append(f"({f['year']}).")
    for name in ("article-title", "volume-title", "series-title", "journal-title"):
        if name in f:
            parts.append(f[name].rstrip(".") + ".")
    loc = ", ".join(x for x in (
        f"vol. {f['volume']}" if "volume" in f else "", f"no. {f['issue']}" if "issue" in f else "",
        f"p. {f['first-page']}" if "first-page" in f else "", f"ed. {f['edition']}" if "edition" in f else "",
    ) if x)
    if loc:
        parts.append(loc + ".")
    if ref.doi:
        parts.append(DOI_RESOLVER + ref.doi)
    return " ".join(parts) or None


def map_references(work: Work, ctx: Context, knowledge: Knowledge) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    out: list[Triple] = []
    refs = ctx.minter.part(work.doi, "reference")
    for ref in work.references:
        node = ctx.minter.child(refs, str(ref.index))
        res = knowledge.resolutions.get(ref.index)
        cited = res.cited if res else (ctx.minter.doi(ref.doi) if ref.doi else ctx.minter.child(node, "cited"))
        out += [
            (s, FRBR.part, node),
            (node, RDF.type, BIRO.BibliographicReference),
            (node, KG.position, lit(str(ref.index), XSD_INTEGER)),
            (node, BIRO.references, cited),
            (s, CITO.cites, cited),
            (s, SDO.citation, cited),
            (cited, RDF.type, FABIO.Expression),
            (cited, RDF.type, SDO.CreativeWork),
        ]
        if ref.key is not None:
            out.append((node, KG.referenceKey, lit(ref.key)))
        text = ref.unstructured or render(ref)
        add_str(out, node, C4O.hasContent, text)
        for name, value in ref.fields:
            out.append((node, FIELD_PROPERTIES[name], lit(value)))
        if ref.doi:
            add_str(out, node, KG.doiAssertedBy, ref.doi_asserted_by)
        if res is None:
            continue
        p = res.parsed
        tools = knowledge.tools.get(ref.index, [])
        artifact = knowledge.artifacts.get(ref.index)
        kind = "tool" if tools else artifact.artifact.kind if artifact else knowledge.kinds.get(ref.index, res.kind)
        out += [(node, KG.resolutionMethod, lit(res.method)), (node, KG.referenceKind, lit(kind)),
                (node, KG.referenceStyle, lit(p.style))]
        for match in tools:
            tool = tool_node(ctx.minter, match.tool)
            ev = ctx.minter.child(node, *tool_segments(match.tool))
            out += [(node, KG.citesTool, tool), (cited, SDO.about, tool), (node, KG.hasToolRecognition, ev),
                    (ev, RDF.type, KG.ToolRecognition), (ev, KG.recognizedTool, tool),
                    (ev, KG.method, lit(match.method)), (ev, KG.score, score_decimal(match.score)),
                    (ev, KG.matchedText, lit(match.matched))]
        cand = knowledge.candidates.get(ref.index)
        if cand is not None:
            cnode = ctx.minter.node("tool-candidate", cand.key)
            ev = ctx.minter.child(node, "tool-candidate")
            out += [(node, KG.suggestsTool, cnode), (cnode, RDF.type, KG.ToolCandidate),
                    (node, KG.hasToolRecognition, ev), (ev, RDF.type, KG.ToolRecognition),
                    (ev, KG.recognizedTool, cnode), (ev, KG.method, lit(cand.method)),
                    (ev, KG.score, score_decimal(cand.score)), (ev, KG.matchedText, lit(cand.matched))]
        if artifact is not None:
            anode = tool_node(ctx.minter, artifact.artifact)
            ev = ctx.minter.child(node, "artifact")
            out += [(node, KG.citesArtifact, anode), (cited, SDO.about, anode),
                    (node, KG.hasArtifactRecognition, ev), (ev, RDF.type, KG.ArtifactRecognition),
                    (ev, KG.recognizedArtifact, anode), (ev, KG.method, lit(artifact.method)),
                    (ev, KG.score, score_decimal(artifact.score)), (ev, KG.matchedText, lit(artifact.matched))]
        out.append((node, KG.resolutionScore, decimal(f"{res.score:.2f}") or lit("0", None)))
        add_str(out, node, KG.matchedText, res.matched)
        add_str(out, node, KG.parsedTitle, p.title)
        for i, author in enumerate(p.authors, 1):
            a = ctx.minter.child(node, "author", str(i))
            out += [(node, KG.parsedAuthor, a), (a, RDF.type, KG.ParsedAuthor),
                    (a, KG.position, lit(str(i), XSD_INTEGER)), (a, SDO.name, lit(author))]
            add_str(out, a, SDO.familyName, family_name(author))
        if p.year:
            out.append((node, KG.parsedYear, lit(p.year, XSD_GYEAR)))
        add_str(out, node, KG.parsedVenue, p.venue)
        for url in p.urls:
            out.append((node, KG.parsedUrl, url_obj(url)))
        add_str(out, node, KG.parsedArxivId, p.arxiv)
        if p.doi_in_text:
            add_str(out, node, KG.parsedDoi, p.doi)
        add_str(out, node, KG.accessedDate, p.accessed)
    return out

"""Typed relations to other works, updates (corrections, retractions, new versions), assertions, trials.

Crossref -> RDF: relation.{type}[i] -> a kg:Relation ``{base}doi/{doi}/relation/{n}`` with its type, the
related identifier and who asserted it, plus dcterms:relation to the related IRI when it has one;
update-to[i] -> a kg:Update; assertion[i] -> a kg:Assertion; clinical-trial-number[i] -> a
kg:ClinicalTrialRegistration.
"""

from __future__ import annotations

from ..model import Work
from ..rdf.terms import XSD_INTEGER, iri_from_url, lit
from ..rdf.vocab import DCTERMS, KG, RDF, RDFS, SDO
from .common import Triple, add_str, date_lit, url_obj
from .context import Context


def map_relations(work: Work, ctx: Context) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    m = ctx.minter
    out: list[Triple] = []
    for i, rel in enumerate(work.relations, start=1):
        node = m.part(work.doi, "relation", str(i))
        out += [(s, KG.hasRelation, node), (node, RDF.type, KG.Relation), (node, KG.relationType, lit(rel.rel_type)),
                (node, KG.relatedIdentifier, lit(rel.ident)), (node, KG.relatedIdentifierType, lit(rel.id_type))]
        add_str(out, node, KG.assertedBy, rel.asserted_by)
        target = None
        if rel.doi:
            target = m.doi(rel.doi)
        elif rel.id_type in ("uri", "url"):
            target = iri_from_url(rel.ident)
        if target:
            out += [(node, DCTERMS.relation, target), (s, DCTERMS.relation, target)]
    for i, up in enumerate(work.updates, start=1):
        node = m.part(work.doi, "update", str(i))
        out += [(s, KG.hasUpdate, node), (node, RDF.type, KG.Update), (node, KG.updateOf, m.doi(up.doi))]
        add_str(out, node, KG.updateType, up.update_type)
        add_str(out, node, RDFS.label, up.label)
        if up.date:
            out.append((node, KG.updateDate, date_lit(up.date)))
    for i, a in enumerate(work.assertions, start=1):
        node = m.part(work.doi, "assertion", str(i))
        out += [(s, KG.hasAssertion, node), (node, RDF.type, KG.Assertion), (node, KG.assertionName, lit(a.name))]
        add_str(out, node, SDO.value, a.value)
        add_str(out, node, RDFS.label, a.label)
        add_str(out, node, KG.assertionGroup, a.group_name)
        add_str(out, node, KG.assertionGroupLabel, a.group_label)
        if a.order is not None:
            out.append((node, KG.assertionOrder, lit(str(a.order), XSD_INTEGER)))
        if a.url:
            out.append((node, SDO.url, url_obj(a.url)))
        if a.explanation:
            out.append((node, KG.assertionExplanation, url_obj(a.explanation)))
    for i, trial in enumerate(work.clinical_trials, start=1):
        node = m.part(work.doi, "clinical-trial", str(i))
        out += [(s, KG.hasClinicalTrial, node), (node, RDF.type, KG.ClinicalTrialRegistration),
                (node, KG.clinicalTrialNumber, lit(trial.number))]
        if trial.registry:
            registry = m.doi(trial.registry_doi) if trial.registry_doi else lit(trial.registry)
            out.append((node, KG.trialRegistry, registry))
        add_str(out, node, KG.trialStage, trial.trial_type)
    return out

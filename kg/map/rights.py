"""Licences and full-text links.

Crossref -> RDF: license[i] -> dcterms:license/schema:license <URL> on the work plus a
kg:LicenseStatement ``{base}doi/{doi}/license/{i+1}`` carrying the URL, start date (precision kept),
content version and delay; link[i] -> a schema:MediaObject ``{base}doi/{doi}/link/{i+1}``.
"""

from __future__ import annotations

from ..model import Work
from ..rdf.terms import XSD_DATETIME, XSD_INTEGER, lit
from ..rdf.vocab import DCTERMS, KG, RDF, SDO
from .common import Triple, add_str, date_lit, url_obj
from .context import Context


def map_rights(work: Work, ctx: Context) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    out: list[Triple] = []
    for i, lic in enumerate(work.licenses, start=1):
        doc = url_obj(lic.url)
        node = ctx.minter.part(work.doi, "license", str(i))
        out += [(s, DCTERMS.license, doc), (s, SDO.license, doc), (s, KG.hasLicenseStatement, node),
                (node, RDF.type, KG.LicenseStatement), (node, KG.licenseDocument, doc)]
        if lic.start_datetime:
            out.append((node, SDO.startDate, lit(lic.start_datetime, XSD_DATETIME)))
        elif lic.start:
            out.append((node, SDO.startDate, date_lit(lic.start)))
        add_str(out, node, KG.contentVersion, lic.content_version)
        if lic.delay_in_days is not None and lic.delay_in_days >= 0:
            out.append((node, KG.delayInDays, lit(str(lic.delay_in_days), XSD_INTEGER)))
    for i, link in enumerate(work.links, start=1):
        node = ctx.minter.part(work.doi, "link", str(i))
        out += [(s, SDO.associatedMedia, node), (node, RDF.type, SDO.MediaObject),
                (node, SDO.contentUrl, url_obj(link.url))]
        add_str(out, node, SDO.encodingFormat, link.content_type)
        add_str(out, node, KG.contentVersion, link.content_version)
        add_str(out, node, KG.intendedApplication, link.intended_application)
    return out

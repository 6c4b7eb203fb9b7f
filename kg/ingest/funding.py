"""Who paid for a work: its funders (Funder Registry DOIs) and its projects with their fundings and amounts.
"""

from __future__ import annotations

from typing import Any

from ..model import Funder, Funding, Project
from .fields import Fields
from .identifiers import FUNDER_DOI_RE, normalize_doi, read_ids
from .text import clip, short, squash


def read_funder(f: Fields, x: dict[str, Any], path: str) -> Funder:
    doi = None
    raw = x.get("DOI")
    if raw is not None:
        doi = normalize_doi(raw) if isinstance(raw, str) else None
        if doi is None:
            f.warn(f"{path}.DOI", f"{short(raw)} is not a DOI")
        elif not FUNDER_DOI_RE.match(doi.lower()):
            f.keep(f"{path}.DOI", squash(raw), f'"{clip(raw)}" is not a Funder Registry DOI (10.13039/...)')
            doi = None
    return Funder(
        name=f.str_(x, "name", f"{path}.name"),
        doi=doi.lower() if doi else None,
        doi_asserted_by=f.str_(x, "doi-asserted-by", f"{path}.doi-asserted-by"),
        awards=tuple(dict.fromkeys(f.strs(x, "award", f"{path}.award"))),
    )


def read_project(f: Fields, p: dict[str, Any], path: str) -> Project:
    titles = tuple(t for q, x in f.objects(p, "project-title", f"{path}.project-title")
                   if (t := f.str_(x, "title", f"{q}.title")))
    descriptions = tuple(t for q, x in f.objects(p, "project-description", f"{path}.project-description")
                         if (t := f.str_(x, "description", f"{q}.description")))
    fundings = []
    for q, x in f.objects(p, "funding", f"{path}.funding"):
        fx = f.dict_(x, "funder", f"{q}.funder") or {}
        doi = None
        for ident, kind, _by in read_ids(f, fx, f"{q}.funder"):
            if kind.lower() == "doi":
                doi = normalize_doi(ident)
                if doi is not None and not FUNDER_DOI_RE.match(doi.lower()):
                    f.keep(f"{q}.funder.id", ident, f'"{clip(ident)}" is not a Funder Registry DOI (10.13039/...)')
                    doi = None
        amount = f.dict_(x, "award-amount", f"{q}.award-amount") or {}
        fundings.append(Funding(
            funder=Funder(f.str_(fx, "name", f"{q}.funder.name"), doi.lower() if doi else None, None, ()),
            funding_type=f.str_(x, "type", f"{q}.type"), scheme=f.str_(x, "scheme", f"{q}.scheme"),
            amount=f.decimal(amount, "amount", f"{q}.award-amount.amount"),
            currency=f.str_(amount, "currency", f"{q}.award-amount.currency"),
            share=f.str_(x, "funding-percentage", f"{q}.funding-percentage"),
        ))
    amount = f.dict_(p, "award-amount", f"{path}.award-amount") or {}
    return Project(titles, descriptions, tuple(fundings), f.decimal(amount, "amount", f"{path}.award-amount.amount"),
                   f.str_(amount, "currency", f"{path}.award-amount.currency"),
                   f.date(p, "award-start", f"{path}.award-start"), f.date(p, "award-end", f"{path}.award-end"))

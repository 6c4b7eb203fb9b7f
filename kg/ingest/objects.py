"""The smaller objects of a record: licences, links, its event, assertions, relations, updates, clinical trials and
institutions; each read alone, None (with a warning where it is malformed) when it says nothing usable.
"""

from __future__ import annotations

from typing import Any

from ..model import Assertion, ClinicalTrial, Event, Institution, License, Link, Relation, Update
from .dates import datetime_ok
from .fields import Fields
from .identifiers import normalize_doi, read_ids
from .text import clip, json_kind, short, squash


def read_license(f: Fields, x: dict[str, Any], path: str) -> License | None:
    url = f.str_(x, "URL", f"{path}.URL")
    if not url:
        f.warn(f"{path}.URL", "is missing")
        return None
    start = f.dict_(x, "start", f"{path}.start")
    dt = start.get("date-time") if start else None
    if isinstance(dt, str) and dt.strip() and not datetime_ok(dt.strip()):
        f.keep(f"{path}.start.date-time", squash(dt), f'"{clip(dt)}" is not a valid ISO date-time')
    return License(
        url=url,
        start=f.date(x, "start", f"{path}.start"),
        start_datetime=dt.strip() if isinstance(dt, str) and datetime_ok(dt.strip()) else None,
        content_version=f.str_(x, "content-version", f"{path}.content-version"),
        delay_in_days=f.count(x, "delay-in-days", f"{path}.delay-in-days"),
    )


def read_link(f: Fields, x: dict[str, Any], path: str) -> Link | None:
    url = f.str_(x, "URL", f"{path}.URL")
    if not url:
        f.warn(f"{path}.URL", "is missing")
        return None
    return Link(url, f.str_(x, "content-type", f"{path}.content-type"),
                f.str_(x, "content-version", f"{path}.content-version"),
                f.str_(x, "intended-application", f"{path}.intended-application"))


def read_event(f: Fields, raw: dict[str, Any]) -> Event | None:
    e = f.dict_(raw, "event", "event")
    if not e:
        return None
    sponsors = e.get("sponsor")
    start, end = f.date(e, "start", "event.start"), f.date(e, "end", "event.end")
    if start and end and end.lexical() < start.lexical()[:len(end.lexical())]:
        f.keep("event.end", end.lexical(), f"{end.lexical()} is before the start {start.lexical()}")
        end = None
    ev = Event(
        name=f.str_(e, "name", "event.name"), acronym=f.str_(e, "acronym", "event.acronym"),
        location=f.str_(e, "location", "event.location"), number=f.str_(e, "number", "event.number"),
        theme=f.str_(e, "theme", "event.theme"),
        sponsors=f.strs(e, "sponsor", "event.sponsor") if isinstance(sponsors, list) else
        ((squash(sponsors),) if isinstance(sponsors, str) and sponsors.strip() else ()),
        start=start, end=end,
    )
    return ev if (ev.name or ev.acronym) else None


def read_assertion(f: Fields, x: dict[str, Any], path: str) -> Assertion | None:
    name = f.str_(x, "name", f"{path}.name")
    if not name:
        f.warn(f"{path}.name", "is missing")
        return None
    group = f.dict_(x, "group", f"{path}.group") or {}
    expl = f.dict_(x, "explanation", f"{path}.explanation") or {}
    return Assertion(
        name=name, value=f.str_(x, "value", f"{path}.value"), label=f.str_(x, "label", f"{path}.label"),
        order=f.int_(x, "order", f"{path}.order"), group_name=f.str_(group, "name", f"{path}.group.name"),
        group_label=f.str_(group, "label", f"{path}.group.label"), url=f.str_(x, "URL", f"{path}.URL"),
        explanation=f.str_(expl, "URL", f"{path}.explanation.URL"),
    )


def read_relations(f: Fields, raw: dict[str, Any]) -> tuple[Relation, ...]:
    rel = f.dict_(raw, "relation", "relation") or {}
    out = []
    for rtype_raw in sorted(rel):
        items = rel[rtype_raw]
        rtype = squash(str(rtype_raw))
        if not rtype:
            continue
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            f.warn(f"relation.{rtype}", f"should be a list, got {json_kind(items)}")
            continue
        for i, x in enumerate(items):
            path = f"relation.{rtype}[{i}]"
            if not isinstance(x, dict):
                f.warn(path, f"should be an object, got {json_kind(x)}")
                continue
            ident, kind = f.str_(x, "id", f"{path}.id"), f.str_(x, "id-type", f"{path}.id-type")
            if ident and kind:
                out.append(Relation(rtype, ident, kind.lower(), f.str_(x, "asserted-by", f"{path}.asserted-by"),
                                    normalize_doi(ident) if kind.lower() == "doi" else None))
    return tuple(out)


def read_update(f: Fields, x: dict[str, Any], path: str, _field: str) -> Update | None:
    raw_doi = x.get("DOI")
    doi = normalize_doi(raw_doi) if isinstance(raw_doi, str) else None
    if doi is None:
        f.warn(f"{path}.DOI", f"{short(raw_doi)} is not a DOI")
        return None
    return Update(f.str_(x, "type", f"{path}.type"), doi.lower(), f.date(x, "updated", f"{path}.updated"),
                  f.str_(x, "label", f"{path}.label"))


def read_trial(f: Fields, x: dict[str, Any], path: str) -> ClinicalTrial | None:
    number = f.str_(x, "clinical-trial-number", f"{path}.clinical-trial-number")
    if not number:
        return None
    registry = f.str_(x, "registry", f"{path}.registry")
    return ClinicalTrial(number, registry, f.str_(x, "type", f"{path}.type"),
                         normalize_doi(registry) if registry else None)


def read_institution(f: Fields, x: dict[str, Any], path: str) -> Institution | None:
    name = f.str_(x, "name", f"{path}.name")
    if not name:
        return None
    return Institution(name, f.strs(x, "place", f"{path}.place"), f.strs(x, "department", f"{path}.department"),
                       f.strs(x, "acronym", f"{path}.acronym"), read_ids(f, x, path))

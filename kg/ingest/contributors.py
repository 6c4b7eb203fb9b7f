"""The people of a record: authors, editors, chairs and translators, then each project's investigators, with
their ORCID iDs (check digit checked), affiliations and roles.
"""

from __future__ import annotations

from typing import Any

from ..model import Affiliation, Contributor, Project
from .fields import Fields
from .funding import read_project
from .identifiers import ORCID_RE, orcid_checksum_ok, read_ids
from .text import short

CONTRIBUTOR_ROLES = ("author", "editor", "chair", "translator")


def read_people(f: Fields, raw: dict[str, Any]) -> tuple[list[Contributor], list[Project]]:
    """Contributors in role order (with the investigators of each project after them), and the projects."""
    contributors: list[Contributor] = []
    for role in CONTRIBUTOR_ROLES:
        for i, (path, c) in enumerate(f.objects(raw, role, role)):
            contributors.append(read_contributor(f, c, role, i + 1, path))
    projects: list[Project] = []
    for ppath, p in f.objects(raw, "project", "project"):
        projects.append(read_project(f, p, ppath))
        for role in ("lead-investigator", "co-lead-investigator", "investigator"):
            start = sum(1 for c in contributors if c.role == role)
            for i, (path, c) in enumerate(f.objects(p, role, f"{ppath}.{role}")):
                contributors.append(read_contributor(f, c, role, start + i + 1, path))

    return contributors, projects


def read_contributor(f: Fields, c: dict[str, Any], role: str, position: int, path: str) -> Contributor:
    orcid = None
    authenticated = None
    raw_orcid = c.get("ORCID")
    if raw_orcid is not None:
        m = ORCID_RE.match(raw_orcid.strip()) if isinstance(raw_orcid, str) else None
        if m is None:
            f.warn(f"{path}.ORCID", f"{short(raw_orcid)} is not an ORCID iD", "it was left out; fix or drop it")
        elif not orcid_checksum_ok(m.group(1)):
            f.warn(f"{path}.ORCID", f'"{m.group(1)}" has a bad check digit', "it was left out; fix or drop it")
        else:
            orcid = m.group(1).upper()
            auth = c.get("authenticated-orcid")
            authenticated = auth if isinstance(auth, bool) else None
    affiliations = []
    for p, a in f.objects(c, "affiliation", f"{path}.affiliation"):
        aff = Affiliation(
            name=f.str_(a, "name", f"{p}.name"),
            ids=read_ids(f, a, p),
            places=f.strs(a, "place", f"{p}.place"),
            departments=f.strs(a, "department", f"{p}.department"),
            acronyms=f.strs(a, "acronym", f"{p}.acronym"),
        )
        if aff.name or aff.ids:
            affiliations.append(aff)
    roles = []
    for p, r in f.objects(c, "role", f"{path}.role"):
        name = f.str_(r, "role", f"{p}.role")
        if name:
            vocab = f.str_(r, "vocabulary", f"{p}.vocabulary")
            roles.append(f"{vocab}:{name}" if vocab else name)
    given = f.str_(c, "given", f"{path}.given")
    family = f.str_(c, "family", f"{path}.family")
    name = f.str_(c, "name", f"{path}.name")
    if not (given or family or name):
        f.warn(path, "has no name (given, family or name)", "it is kept as an unnamed contributor")
    return Contributor(
        role=role, position=position, given=given, family=family,
        name=name if not (given or family) else None,
        suffix=f.str_(c, "suffix", f"{path}.suffix"), prefix=f.str_(c, "prefix", f"{path}.prefix"),
        orcid=orcid, orcid_authenticated=authenticated, sequence=f.str_(c, "sequence", f"{path}.sequence"),
        affiliations=tuple(affiliations), roles=tuple(roles),
    )

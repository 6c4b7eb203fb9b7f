"""Organisation identity: one node per organisation however its name and place are written.

Crossref affiliations are free text ("University of Wisconsin-Madison, Madison, Wisconsin, USA" in one record,
"..., United States of America" in the next). The key of an organisation without a ROR id is its name split
into comma-separated parts, each folded (case, accents, punctuation, the words "at" and "the" dropped), with
country and region names and abbreviations replaced by one code each (kg/data/places.json: data, not code),
so "USA", "U.S.A." and "United States of America" are one place, as are "Wisconsin" and "WI".

Example:

>>> a = org_key("University of Illinois at Urbana-Champaign, Urbana, IL, USA")
>>> a == org_key("University of Illinois Urbana Champaign, Urbana, Illinois, United States")
True
"""

from __future__ import annotations

import re
from functools import cache

import orjson

from ..rdf.ids import Minter, name_key
from ..refs.parse import fold
from ..resources import data_file

_PARTS = re.compile(r"\s*[,;]\s*")


@cache
def _places() -> tuple[dict[str, str], dict[str, tuple[str, str]], frozenset[str]]:
    """folded country name -> country code; folded region name -> (country code, region code); skip words."""
    doc = orjson.loads(data_file("places.json").read_bytes())
    countries = {fold(n): code for code, names in doc["countries"].items() for n in names if fold(n)}
    regions = {fold(n): (country, code) for country, subs in doc["regions"].items()
               for code, names in subs.items() for n in names if fold(n)}
    return countries, regions, frozenset(doc["skip_words"])


def org_key(name: str | None, places: tuple[str, ...] = (), departments: tuple[str, ...] = ()) -> str:
    """The matching key of an organisation named by free text (see the module docstring)."""
    countries, regions, skip = _places()
    parts = [p for text in (name, *places, *departments) if text for p in _PARTS.split(text)]
    folded = [" ".join(w for w in fold(p).split() if w not in skip) for p in parts]
    present = {countries[f] for f in folded if f in countries}
    out: list[str] = []
    for f in folded:
        if not f:
            continue
        region = regions.get(f)
        if region is not None and (region[0] in present or f not in countries):
            token = f"region:{region[0]}-{region[1]}"
        elif f in countries:
            token = f"country:{countries[f]}"
        else:
            token = f
        if not out or out[-1] != token:
            out.append(token)
    return name_key(*out)


def ror_id(ident: str) -> str | None:
    """``https://ror.org/03yrm5c26`` or ``03yrm5c26`` -> ``03yrm5c26``; None when not ROR-shaped."""
    tail = ident.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    return tail if len(tail) == 9 and tail[0] == "0" and tail.isalnum() else None


def org_node(minter: Minter, name: str | None, ids: tuple[tuple[str, str, str | None], ...],
             places: tuple[str, ...] = (), departments: tuple[str, ...] = ()) -> str:
    """The node of an organisation: keyed by ROR id when present, else by its name and places as
    ``kg.map.orgs.org_key`` matches them, else by its other identifiers."""
    ror = next((r for i, kind, _ in ids if kind.upper() == "ROR" and (r := ror_id(i))), None)
    if ror:
        return minter.node("org", "ror", ror)
    if name:
        return minter.node("org", org_key(name, places, departments))
    return minter.node("org", "id", name_key(*sorted(f"{kind}:{i}" for i, kind, _ in ids)))

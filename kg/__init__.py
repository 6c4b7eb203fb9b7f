"""crossref-kg: Crossref work records to a schema.org + FaBiO + CiTO knowledge graph."""

__version__ = "0.1.0"

"""Stored SPARQL queries, the graph backends they run on, and result tables."""

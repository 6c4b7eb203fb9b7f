"""Reading Crossref records and normalizing them into typed values."""

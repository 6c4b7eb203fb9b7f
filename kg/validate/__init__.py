"""SHACL validation: the compiled engine, Oxigraph SPARQL checks and pySHACL, the reference."""

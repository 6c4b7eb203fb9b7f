"""Reference knowledge: parsing references into fields, resolving them to cited works, recognising tools."""

"""Where ``kg fetch`` finds works besides DOIs: a Crossref search, a reference manager's library, OpenCitations.

``search`` pages through ``/works?query...&filter...`` with a deep-paging cursor, ``library`` reads the DOIs of a
BibTeX, RIS or CSL-JSON export, ``citations`` asks the OpenCitations Index who cites a DOI; each asks
through ``kg.fetch.Client.ask``, the request loop of ``/works/{doi}`` (its rate limiter, retries and bounds).
"""

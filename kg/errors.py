"""One error family: every message says what went wrong, where, and what to do next."""

from __future__ import annotations


class KgError(Exception):
    """Base of every error crossref-kg raises on purpose; str(e) is one line for the user."""

    exit_code = 2


class InputError(KgError):
    """Unreadable or unusable input (file, record or field); `where` names file and record."""

    def __init__(self, where: str, what: str, fix: str) -> None:
        self.where, self.what, self.fix = where, what, fix
        super().__init__(f"{where}: {what}; {fix}")

    def __reduce__(self) -> tuple:  # (made again from its parts when it comes back from a worker process)
        return type(self), (self.where, self.what, self.fix)


class UsageError(KgError):
    """A command was called with options that cannot work together or do not exist."""


class QueryError(KgError):
    """A stored query, its header or its parameters are wrong, or a backend failed."""


class ValidationFailed(KgError):
    """The graph has violations and the build was asked not to replace the workspace."""

    exit_code = 3

    def __init__(self, message: str, report: object = None) -> None:
        super().__init__(message)
        self.report = report


class StrictStop(KgError):
    """--strict met the first problem (a skipped record or a warning); the build stops and writes nothing."""

    def __init__(self, line: str) -> None:
        self.line = line
        super().__init__(f"{line} (--strict: stopped, nothing written)")

    def __reduce__(self) -> tuple:  # (made again from its line when it comes back from a worker process)
        return type(self), (self.line,)


class EnginesDiffer(KgError):
    """Two SHACL engines asked for the same report (``KG_SHACL_ENGINE=both``) gave different results."""


class Busy(KgError):
    """Another live build holds the lock of a workspace or a store folder."""


class BuildInterrupted(KgError):
    """Ctrl-C (or SIGTERM) during a build; the message says whether the outputs are all old or all new."""

    exit_code = 130

    def __init__(self, committed: bool) -> None:
        self.committed = committed
        super().__init__("interrupted after every output was written; the workspace graph and the outputs are "
                         "all new" if committed else
                         "interrupted; the workspace graph and the outputs are as they were; run the build again")


class HostUnresolved(KgError):
    """A host's name does not resolve (no network, or a wrong URL): ``kg fetch`` stops at the first such request,
    since every other request to that host would fail alike."""

    exit_code = 1


class FetchStopped(Exception):
    """A request of ``kg fetch`` ended because the run is stopping (Ctrl-C or an error elsewhere) while it waited
    for its turn or a retry. Not a ``KgError``: the user hears of what stopped the run, never of this."""

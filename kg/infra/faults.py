"""Fault injection for the tests of interrupted builds: ``KG_FAULT=STAGE:SIGNAL`` (say ``export:KILL``) makes
the build send itself SIGNAL when it reaches STAGE, so that a test can kill or interrupt it at a known point
without timing anything. Unset (always, outside those tests), ``reached`` does nothing.

Stages, in the order a build meets them: read (pass 1 has its first results), map (pass 2 has written its
first run), merge (the workspace graph's temporary file has its first block), graph (it is complete),
validate (validation is done), export (the -o temporary file is complete), store (the store is built aside),
commit (everything is written, nothing is in place yet), commit-half (the first of several renames is done),
committed (all is in place). ``kg fetch`` has one: fetch (a record is about to be written).

SIGNAL FULL stands for a full disk: at ``reached`` it raises the OSError a full disk raises (ENOSPC); where a
store must fill up for real, ``fills(STAGE)`` tells it to (resolve: the resolution database gets two pages).

``KG_FAULT_ONCE=STAGE:FILE`` (``dies_once``) kills a cluster worker once, in the task STAGE.
"""

from __future__ import annotations

import errno
import os
import signal

ENV = "KG_FAULT"


def reached(stage: str) -> None:
    spec = os.environ.get(ENV)
    if not spec or ":" not in spec:
        return
    want, sig = spec.split(":", 1)
    if want == stage:
        os.environ.pop(ENV, None)  # (once: an interrupted build's clean-up goes on undisturbed)
        if sig.upper() == "FULL":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.kill(os.getpid(), getattr(signal, f"SIG{sig.upper()}"))


def fills(stage: str) -> bool:
    """Whether ``KG_FAULT=STAGE:FULL`` asks the store of ``stage`` to fill up (once)."""
    if os.environ.get(ENV, "").upper() != f"{stage}:FULL".upper():
        return False
    os.environ.pop(ENV, None)
    return True


ONCE_ENV = "KG_FAULT_ONCE"


def dies_once(stage: str) -> None:
    """``KG_FAULT_ONCE=STAGE[,STAGE...]:FILE``: the first process (of all that share FILE's folder) to reach each
    STAGE creates ``FILE.STAGE`` and dies at once (SIGKILL, as the out-of-memory killer kills); the others, and
    the tasks run again, go on. A cluster build's stages are its task functions (``kg.pipeline.partitioned``: scan,
    dedupe, named, resolve_titles, resolve_groups, resolve_urls, cited, map_file, shared, fact_graph,
    sample_lines, part), reached by a worker when the task has done its work, before it answers."""
    spec = os.environ.get(ONCE_ENV)
    if not spec or ":" not in spec:
        return
    want, marker = spec.split(":", 1)
    if stage not in want.split(","):
        return
    try:
        fd = os.open(f"{marker}.{stage}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)

"""The workspace, the ``.kg`` folder builds write and commands read: its paths, the record of the inputs its graph
was built from, scratch folders, the pointer to a cluster build's parts folder, and what to fetch next."""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path

import orjson

from .errors import KgError
from .infra import outputs, parts
from .infra.location import Location
from .ingest.read import display_path

WORKSPACE_ENV = "KG_HOME"
INPUTS_FILE = "inputs.json"  # the inputs of the build that wrote the workspace graph
FETCH_FOLDER = "fetched"  # where 'kg fetch' saves records unless -o


def workspace() -> Path:
    """The workspace folder: $KG_HOME, else .kg/ in the current directory."""
    return Path(os.environ.get(WORKSPACE_ENV) or ".kg")


def workspace_source() -> Path | str:
    """The workspace's graph: its ``graph.nq``, or the parts folder a cluster build wrote (``kg.infra.parts``; a
    path, or a URL)."""
    return parts.workspace_graph(workspace())


def workspace_graph() -> Path:
    """The workspace's graph on this machine: ``workspace_source`` unless that is a URL (an error then)."""
    src = workspace_source()
    if isinstance(src, str):
        raise KgError(f"{src}: the workspace graph is a parts folder at a URL; read it with kg query or kg export, "
                      "or copy it here and pass its folder")
    return src


def scratch_dir(folder: Path) -> Path:
    """A fresh scratch folder inside the workspace ``folder``; scratch folders of dead builds are removed first."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(".build-*"):
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not outputs.alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=".build-", suffix=f"-{os.getpid()}", dir=folder))


def inputs_note(plan: outputs.Outputs, inputs: list[str]) -> tuple[str | None, bytes]:
    """A note when the workspace graph was built from other inputs than ``inputs``, and the record of these."""
    ids = ["stdin" if i == "-" else os.path.abspath(i) for i in inputs]
    given = ["stdin" if i == "-" else display_path(i) for i in inputs]
    mine = orjson.dumps({"inputs": ids, "given": given}, option=orjson.OPT_INDENT_2)
    try:
        last = orjson.loads((plan.workspace / INPUTS_FILE).read_bytes())
        before, given = list(last["inputs"]), [str(g) for g in last["given"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None, mine + b"\n"
    if sorted(before) == sorted(ids) or not plan.graph.path or not plan.graph.path.exists():
        return None, mine + b"\n"
    shown = ", ".join(given[:3]) + (f" and {len(given) - 3} more" if len(given) > 3 else "")
    return (f"{plan.graph.shown}: was built from other inputs ({shown}); this build replaces it with the graph "
            "of the inputs given", mine + b"\n")


def write_inputs(plan: outputs.Outputs, manifest: bytes) -> None:
    """The record of the build's inputs (``inputs_note``), committed with the workspace graph."""
    _commit_with(plan, plan.workspace / INPUTS_FILE, manifest)


def point_at_parts(plan: outputs.Outputs, folder: Location) -> None:
    """Make a cluster build's parts ``folder`` the workspace graph (the pointer, committed with the outputs)."""
    where = folder.where if folder.url else os.path.abspath(folder.where)
    _commit_with(plan, plan.workspace / parts.POINTER, (where + "\n").encode())


def drop_parts_pointer(plan: outputs.Outputs) -> None:
    """Make ``graph.nq`` the workspace graph again (after a build that wrote it is committed)."""
    pointer = plan.workspace / parts.POINTER
    if pointer.exists():
        pointer.unlink()


def _commit_with(plan: outputs.Outputs, path: Path, data: bytes) -> None:
    """A file of the workspace written aside and put in place with the other outputs of ``plan``."""
    target = outputs.Target(str(path), path, False, False)
    with outputs.opened(target, binary=True) as fh:
        fh.write(data)
    plan.extra.append(target)


def fetch_command(on_workspace: bool = True) -> str:
    """``kg fetch --cited-by ... && kg build ... fetched``: fetch what the inputs of the workspace graph cite, then
    build them again with the records fetched. The inputs are those of the last build (``inputs.json``), as paths
    that work from the current folder; ``INPUTS`` stands for them when they are not known or cannot be read again
    (standard input, a file since removed), or when the graph is not the workspace's."""
    inputs = last_inputs() if on_workspace else None
    if inputs is None:
        return (f"kg fetch --cited-by INPUTS && kg build INPUTS {FETCH_FOLDER} (INPUTS: the Crossref records the "
                "graph was built from)")
    fetched = os.path.abspath(FETCH_FOLDER)
    cited_by = [p for p in inputs if os.path.abspath(p) != fetched] or inputs
    built = inputs + ([] if any(os.path.abspath(p) == fetched for p in inputs) else [FETCH_FOLDER])
    return ("kg fetch" + "".join(f" --cited-by {shlex.quote(p)}" for p in cited_by) + " && kg build "
            + " ".join(map(shlex.quote, built)))


def last_inputs() -> list[str] | None:
    """The inputs of the build that wrote the workspace graph, shown relative to the current folder when inside
    it; None when not recorded, or when one of them cannot be read again (standard input, a path since gone)."""
    try:
        paths = [str(p) for p in orjson.loads((workspace() / INPUTS_FILE).read_bytes())["inputs"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not paths or any(p == "stdin" or not os.path.exists(p) for p in paths):
        return None
    here = os.getcwd()
    return [os.path.relpath(p, here) if os.path.commonpath([here, p]) == here else p for p in paths]
